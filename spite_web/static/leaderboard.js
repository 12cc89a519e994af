// The leaderboard: sortable columns, and live updates from the JSON API while the tournament runs.
(function () {
  "use strict";
  const table = document.getElementById("leaderboard");
  if (!table) return;
  let sortKey = null, descending = false;

  function sortBy(th) {
    const index = Array.from(th.parentNode.children).indexOf(th);
    const key = th.dataset.key;
    descending = sortKey === key ? !descending : !["rank", "name", "faults", "losses", "decision_ms_p50", "decision_ms_p99"].includes(key);
    sortKey = key;
    const rows = Array.from(table.tBodies[0].rows);
    rows.sort((a, b) => {
      const x = a.cells[index].dataset.v, y = b.cells[index].dataset.v;
      const nx = Number(x), ny = Number(y);
      const order = isNaN(nx) || isNaN(ny) ? x.localeCompare(y) : nx - ny;
      return descending ? -order : order;
    });
    rows.forEach((row) => table.tBodies[0].append(row));
    table.querySelectorAll("th").forEach((h) => h.classList.remove("sorted-asc", "sorted-desc"));
    th.classList.add(descending ? "sorted-desc" : "sorted-asc");
  }
  table.querySelectorAll("th[data-key]").forEach((th) => th.addEventListener("click", () => sortBy(th)));

  // Live: while the tournament runs, poll its JSON and refresh the page's body in place
  // (no reload: the sort order and scroll position stay).
  const progress = document.getElementById("progress");
  async function refresh() {
    try {
      const answer = await fetch(window.location.pathname, {headers: {"Accept": "text/html"}});
      if (!answer.ok) return;
      const page = new DOMParser().parseFromString(await answer.text(), "text/html");
      for (const id of ["leaderboard", "head-to-head", "progress"]) {
        const fresh = page.getElementById(id), old = document.getElementById(id);
        if (!fresh || !old) continue;
        if (id === "leaderboard") old.tBodies[0].replaceWith(fresh.tBodies[0]); else old.replaceWith(fresh);
      }
      if (sortKey) { const th = table.querySelector(`th[data-key="${sortKey}"]`); descending = !descending; sortBy(th); }
      const live = document.getElementById("progress");
      if (live.dataset.status === "running") { document.getElementById("live").hidden = false; setTimeout(refresh, 2000); }
    } catch (error) { setTimeout(refresh, 5000); }
  }
  if (progress && progress.dataset.status === "running") {
    document.getElementById("live").hidden = false;
    setTimeout(refresh, 2000);
  }
})();
