"""A model's reasoning on the site: the markets it names by id shown by question and linked."""

from __future__ import annotations

from arena_core.site.reasoning import linked, mentioned, shortened

NAMED = {"540816": "Will the Fed cut rates in December?", "index": "A market named index"}


def test_an_id_the_cohort_holds_is_shown_by_its_question_and_linked() -> None:
    html = str(linked("Buying 540816: the dot plot leans dovish.", NAMED, "../"))
    assert html == (
        'Buying <a href="../markets/540816.html" title="market 540816">'
        "Will the Fed cut rates in December?</a>: the dot plot leans dovish."
    )


def test_an_unknown_id_or_an_id_inside_a_longer_token_is_printed_as_written() -> None:
    text = "Not 999999, not 5408161, not x540816."
    assert str(linked(text, NAMED, "")) == text
    assert mentioned(text, NAMED) == {}


def test_a_market_whose_id_an_index_takes_links_to_its_own_page() -> None:
    html = str(linked("see index.", NAMED, ""))
    assert 'href="markets/index~.html"' in html


def test_hostile_text_and_questions_are_escaped() -> None:
    named = {"7": 'Q <img src=x onerror="alert(1)">'}
    html = str(linked('<script>alert("x")</script> 7 & more', named, ""))
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;" in html and "&amp; more" in html
    assert '<a href="markets/7.html" title="market 7">Q &lt;img' in html


def test_the_cut_happens_before_linking_so_no_link_is_broken() -> None:
    text = "word " * 30 + "540816 at the end"
    html = str(linked(text, NAMED, "", limit=40))
    assert html.endswith("...") and "<a" not in html
    assert len(shortened(text, 40)) <= 43


def test_mentioned_lists_each_named_market_once() -> None:
    assert mentioned("540816 then 540816. Also index", NAMED) == NAMED
