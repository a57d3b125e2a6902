"""moto's update expressions parsed once per text, copied and walked at a tree's cost.

Each UpdateItem (and each Update of a transaction) made moto 5.2 parse its expression twice,
deep-copy the tree through every node's ``__reduce_ex__`` and walk it with ten processors,
each recomputing, at every node, the node types it processes and testing them with ``isinstance``
against abstract classes. ``expression_shortcuts``:

- parses each expression text once (the validator copies the tree it is given, and nothing
  else changes a parsed tree);
- copies a parsed tree node by node (``_tree_copy``), with each child pointing back to its copied
  parent as ``deepcopy`` leaves it;
- walks a tree as ``DepthFirstTraverser.traverse_node_recursively`` does, children first, the
  hook before each child, with the processed node types taken once per walk and each node
  class's answer kept for the walk;
- runs the validator's three checks of the expression's shape (one SET, ADD and REMOVE
  clause at most; no path updated twice; no key attribute updated) once per parsed tree,
  attribute names and key attributes: they read nothing else and change nothing, and the
  first ran each at every node of the expression's class (a dozen per tree), each walking the
  subtree below it. A check that fails is never remembered: it runs, and fails, every time.

Answers are unchanged: tests/infra/test_moto_caches.py runs updates of every kind with and
without them.
"""

from __future__ import annotations

import copy as real_copy
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from moto.dynamodb.parsing import ast_nodes
from moto.dynamodb.parsing import expressions as moto_expressions
from moto.dynamodb.parsing import validators as moto_validators

# moto's parser, tree nodes and walker (their modules are not typed: read as Any)
PARSER: Any = getattr(moto_expressions, "UpdateExpressionParser")  # noqa: B009
Node: Any = getattr(ast_nodes, "Node")  # noqa: B009
DepthFirstTraverser: Any = getattr(ast_nodes, "DepthFirstTraverser")  # noqa: B009
VALIDATOR: Any = getattr(moto_validators, "UpdateExpressionValidator")  # noqa: B009
# The validator's processors that check the expression's shape against its attribute names and
# the table's key attributes only, returning every node as it was.
SHAPE_CHECKS = tuple(
    getattr(moto_validators, name)
    for name in ("ActionCountValidator", "OverlappingPathsValidator", "UpdateHashRangeKeyValidator")
)
PARSED_EXPRESSIONS = 512  # update expressions kept parsed (a deployment uses a few dozen)

_PLAIN = (str, int, float, bool, type(None))


class _NotATreeError(Exception):
    """A node refers to another node other than through its children: copied by ``deepcopy``."""


def _tree_copy(node: Any, parent: Any) -> Any:
    """A copy of a parsed expression's tree: each node's plain attributes, its children copied
    the same way and pointing back to it (``deepcopy`` of a tree costs ten times as much: it
    goes through each node's ``__reduce_ex__``)."""
    copied = object.__new__(type(node))
    for name, value in vars(node).items():
        if name == "parent":
            setattr(copied, name, parent)
        elif name == "children" and type(value) is list:
            children = [
                _tree_copy(child, copied) if isinstance(child, Node) else _plain(child)
                for child in value
            ]
            setattr(copied, name, children)
        else:
            setattr(copied, name, _plain(value))
    return copied


def _plain(value: Any) -> Any:
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, Node):
        raise _NotATreeError
    return real_copy.deepcopy(value)


def _validator_copy(value: Any, memo: Any = None) -> Any:
    """``deepcopy`` for moto's update-expression validator: a whole parsed tree (a root node)
    by ``_tree_copy``; anything else as before."""
    if isinstance(value, Node) and value.parent is None and memo is None:
        try:
            return _tree_copy(value, None)
        except _NotATreeError:
            pass
    return real_copy.deepcopy(value, memo)


def _walk(traverser: Any, root: Any) -> Any:
    """``traverser.traverse(root)``, as moto's recursion does it (see the module docstring)."""
    wanted = traverser.nodes_to_be_processed()
    processed: dict[type, bool] = {}

    def visit(node: Any, child_id: int) -> Any:
        if not _is_node(type(node)):
            return node
        parent = node.parent
        if node.children is not None:
            for position, child in enumerate(node.children):
                traverser.pre_processing_of_child(node, position)
                visit(child, position)
        kind = type(node)
        hit = processed.get(kind)
        if hit is None:
            hit = processed[kind] = isinstance(node, wanted)
        if hit:
            node = traverser.process(node)
            node.parent = parent
            if parent:
                parent.children[child_id] = node
        return node

    return visit(root, -1)


_NODE_CLASSES: dict[type, bool] = {}


def _is_node(kind: type) -> bool:
    known = _NODE_CLASSES.get(kind)
    if known is None:
        known = _NODE_CLASSES[kind] = issubclass(kind, Node)
    return known


def _shape_context(validator: Any) -> tuple[Any, ...]:
    """What the shape checks read besides the tree: the attribute names, the key attributes."""
    names = validator.expression_attribute_names or {}
    return (tuple(sorted(names.items())), tuple(validator.table.table_key_attrs))


@contextmanager
def expression_shortcuts() -> Iterator[None]:
    """Update expressions parsed once, copied and walked at a tree's cost, their shape
    checked once (see above)."""
    original_make = PARSER.__dict__["make"]
    original_traverse = DepthFirstTraverser.traverse
    own = {name: VALIDATOR.__dict__.get(name) for name in ("__init__", "validate")}
    original_init = VALIDATOR.__init__
    parsed: dict[str, Any] = {}
    # id(parsed tree) -> (the tree, the contexts its shape passed in); cleared with ``parsed``
    shapes: dict[int, tuple[Any, set[tuple[Any, ...]]]] = {}

    def make(cls: Any, expression: str) -> Any:
        tree = parsed.get(expression)
        if tree is None:
            if len(parsed) >= PARSED_EXPRESSIONS:
                parsed.clear()
                shapes.clear()
            tree = parsed[expression] = original_make.__func__(cls, expression)
        return tree

    def init(validator: Any, expression: Any, *args: Any, **kwargs: Any) -> None:
        validator.arena_tree = expression  # the parsed tree itself (it validates a copy)
        original_init(validator, expression, *args, **kwargs)

    def validate(validator: Any) -> Any:
        tree, context = validator.arena_tree, _shape_context(validator)
        kept = shapes.get(id(tree))
        checked = kept is not None and kept[0] is tree and context in kept[1]
        node = validator.node_to_validate
        for processor in validator.processors:
            if checked and isinstance(processor, SHAPE_CHECKS):
                continue
            node = processor.traverse(node)
        if not checked:  # every processor passed, the shape checks with them
            shapes.setdefault(id(tree), (tree, set()))[1].add(context)
        return node

    PARSER.make = classmethod(make)
    VALIDATOR.__init__, VALIDATOR.validate = init, validate
    setattr(DepthFirstTraverser, "traverse", _walk)  # noqa: B010 - moto's class, while inside
    setattr(moto_validators, "deepcopy", _validator_copy)  # noqa: B010 - moto's module global
    try:
        yield
    finally:
        PARSER.make = original_make
        for name, method in own.items():  # moto's class as it was (they are inherited)
            if method is None:
                delattr(VALIDATOR, name)
            else:
                setattr(VALIDATOR, name, method)
        setattr(DepthFirstTraverser, "traverse", original_traverse)  # noqa: B010
        setattr(moto_validators, "deepcopy", real_copy.deepcopy)  # noqa: B010
