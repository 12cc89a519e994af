// Dates as people read them, the same words as the pages' `when` filter (spite_web/site.py):
// "2 Dec 2026, 07:33 UTC" for an ISO timestamp, "" for none.
window.spiteWhen = function (stamp) {
  "use strict";
  if (!stamp) return "";
  const d = new Date(stamp);
  if (isNaN(d)) return String(stamp).slice(0, 32);
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const two = (n) => String(n).padStart(2, "0");
  return d.getUTCDate() + " " + months[d.getUTCMonth()] + " " + d.getUTCFullYear() + ", " +
    two(d.getUTCHours()) + ":" + two(d.getUTCMinutes()) + " UTC";
};
