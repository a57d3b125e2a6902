// Progressive enhancement only: range buttons and sortable tables. No inline script anywhere,
// so pages run under a strict Content-Security-Policy.
"use strict";

function setupRanges(section) {
  const buttons = section.querySelectorAll("button[data-range]");
  buttons.forEach((button) => {
    button.addEventListener("click", () => {
      const range = button.dataset.range;
      buttons.forEach((b) => b.setAttribute("aria-pressed", String(b === button)));
      section.querySelectorAll("figure[data-range]").forEach((figure) => {
        figure.hidden = figure.dataset.range !== range;
      });
    });
  });
}

const MISSING = new Set(["", "—", "-", "–"]);

// A cell's sort key; null when the value is missing (an empty data-value, or a dash), which
// sorts last in either direction: a family without a Brier is never "best" by Brier. Without a
// data-value, a cell that starts with a number ("$1,250.00", "12.5% [..]") sorts as it.
function cellValue(row, index) {
  const cell = row.cells[index];
  if (cell === undefined) {
    return null;
  }
  const raw = cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim();
  if (MISSING.has(raw.trim())) {
    return null;
  }
  const leading = raw.replace(/[$,%+]/g, "").trim().split(/\s+/)[0];
  const number = Number(leading);
  return Number.isNaN(number) || leading === "" ? raw.toLowerCase() : number;
}

// Every table of figures sorts (the pairwise matrices are read across, not sorted): headers
// without a sort button get one.
function addSortButtons(table) {
  const head = table.tHead;
  if (!head || head.rows.length === 0 || table.querySelector("th button[data-sort]")) {
    return;
  }
  Array.from(head.rows[0].cells).forEach((th, index) => {
    if (!th.textContent.trim()) {
      return; // a button needs a name: an empty heading (a row label's column) stays as it is
    }
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.sort = String(index);
    while (th.firstChild) {
      button.appendChild(th.firstChild);
    }
    th.appendChild(button);
  });
  table.classList.add("sortable");
}

function compareCells(x, y, ascending) {
  if (x === null || y === null) {
    return x === y ? 0 : x === null ? 1 : -1;
  }
  const order = x < y ? -1 : x > y ? 1 : 0;
  return ascending ? order : -order;
}

function setupSorting(table) {
  const body = table.tBodies[0];
  table.querySelectorAll("th button[data-sort]").forEach((button) => {
    button.addEventListener("click", () => {
      const index = Number(button.dataset.sort);
      const ascending = button.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("th button[data-sort]").forEach((b) => b.removeAttribute("aria-sort"));
      button.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      const rows = Array.from(body.rows);
      rows.sort((a, b) => compareCells(cellValue(a, index), cellValue(b, index), ascending));
      rows.forEach((row) => body.appendChild(row));
    });
  });
}

// A leaderboard shows its ranked columns; the rest are one button away (and on the model
// pages). The group headers span what is shown.
function setupColumnsToggle(button) {
  const table = document.getElementById(button.dataset.table);
  if (!table) {
    return;
  }
  button.addEventListener("click", () => {
    const all = !table.classList.contains("all-columns");
    table.classList.toggle("all-columns", all);
    button.setAttribute("aria-pressed", String(all));
    button.textContent = all ? "Show the ranked columns only" : "Show every column";
    table.querySelectorAll("tr.groups th[data-all]").forEach((th) => {
      th.colSpan = Number(all ? th.dataset.all : th.dataset.primary);
    });
  });
}

// A live cohort's pages are redrawn daily; its figures move more often. The page names its
// cohort's small JSON of figures; each element marked data-live gets the text the JSON gives its
// key, exactly as a fresh page would print it, but only from figures newer than the page's own
// (a cached file older than the page would roll them back). When the file cannot be read, the
// page says so and keeps the figures it was drawn with (as it does without script).
// What became of the live figures ("applied", "kept": not newer than the page's,
// "unavailable"), on the body for whoever needs to know (the browser tests).
function liveDone(state) {
  document.body.dataset.live = state;
}

function liveUnavailable() {
  document.querySelectorAll("[data-live-status]").forEach((element) => {
    element.hidden = false;
  });
  liveDone("unavailable");
}

function applyLive(live) {
  document.querySelectorAll("[data-live]").forEach((element) => {
    const text = live.values[element.dataset.live];
    if (typeof text === "string") {
      element.textContent = text;
      const cell = element.closest("td");
      if (cell && cell.dataset.value !== undefined) {
        delete cell.dataset.value; // sort by the new text
      }
    }
  });
  document.querySelectorAll("[data-live-as-of]").forEach((element) => {
    element.textContent = live.as_of;
    element.dataset.at = live.at;
  });
}

function refreshLiveValues() {
  const source = document.querySelector('meta[name="live-values"]');
  if (!source) {
    return;
  }
  const shown = document.querySelector("[data-live-as-of]");
  const drawn = shown ? Date.parse(shown.dataset.at || "") : NaN;
  fetch(source.content, { cache: "no-cache" })
    .then((response) => (response.ok ? response.json() : null))
    .then((live) => {
      const valid =
        live && typeof live.values === "object" && live.values !== null && typeof live.as_of === "string";
      if (!valid) {
        liveUnavailable();
        return;
      }
      const at = Date.parse(live.at || "");
      if (Number.isNaN(at) || (!Number.isNaN(drawn) && at <= drawn)) {
        liveDone("kept"); // not newer than the page: nothing to apply
        return;
      }
      applyLive(live);
      liveDone("applied");
    })
    .catch(liveUnavailable);
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("button.columns-toggle").forEach(setupColumnsToggle);
  document.querySelectorAll("section.chart").forEach(setupRanges);
  document.querySelectorAll("table:not(.matrix)").forEach(addSortButtons);
  document.querySelectorAll("table.sortable").forEach(setupSorting);
  refreshLiveValues();
});
