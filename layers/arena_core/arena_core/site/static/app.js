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

// A cell's sort key; null when the value is missing (an empty data-value), which sorts last in
// either direction: a family without a Brier is never "best" by Brier.
function cellValue(row, index) {
  const cell = row.cells[index];
  const raw = cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent;
  if (raw.trim() === "") {
    return null;
  }
  const number = Number(raw);
  return Number.isNaN(number) ? raw.toLowerCase() : number;
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

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("section.chart").forEach(setupRanges);
  document.querySelectorAll("table.sortable").forEach(setupSorting);
});
