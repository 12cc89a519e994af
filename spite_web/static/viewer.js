// The replay viewer: draws one frame of a spite-viewer document as a card table.
// Dependency-free; the same file runs in `spite web` and inline in `spite replay --html`.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const config = window.SPITE_REPLAY || {api: null, standalone: true};
  // Served: each view comes from the API and replaces the page's data, so an as-seat view's
  // DOM holds only that seat's view. Standalone: the file is the whole replay anyway.
  let original = JSON.parse($("replay-data").textContent);
  let data = original;
  const allViews = config.api ? true : original.view === "omniscient";
  const live = Boolean(config.live);
  let step = 0;
  let timer = null;

  const FANNED = 8;
  const NAMES = {0: "★", 1: "A", 11: "J", 12: "Q", 13: "K"};
  // Skip-Bo's cards are numbered 1..12 and its wild is "SB"; Spite and Malice's are A..K and jokers.
  const cardName = (rank) => (data.rules.deck === "skip-bo" ? (rank === 0 ? "SB" : String(rank)) : NAMES[rank] || String(rank));
  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  };

  function card(rank, extra) {
    const wild = data.rules.wild.includes(rank);
    const c = el("div", "card" + (wild ? " wild" : "") + (rank >= 11 || rank === 1 ? " face" : "") + (extra ? " " + extra : ""));
    c.dataset.rank = rank;
    const name = cardName(rank);
    c.append(el("span", "corner tl", name), el("span", "pip", wild && rank !== 0 ? "★" : name), el("span", "corner br", name));
    if (wild) c.title = name + " (wild)";
    return c;
  }
  const back = (extra) => el("div", "card back" + (extra ? " " + extra : ""));
  const slot = (label) => el("div", "card slot", label || "");

  function seatOrder() {
    const n = data.rules.players;
    const bottom = typeof data.view === "number" ? data.view : 0;
    const order = [];
    for (let i = 1; i < n; i++) order.push((bottom + i) % n);
    order.push(bottom);
    return order;
  }

  function drawSeat(frame, seat, lastMove) {
    const stockIndex = data.rules.stock_of[seat];
    const box = el("section", "seat" + (frame.to_move === seat && !atEnd() ? " to-move" : "") + (isWinner(seat) && atEnd() ? " winner" : ""));
    box.dataset.seat = seat;
    const head = el("header", "seat-head");
    head.append(el("span", "seat-name", data.seats[seat]), el("span", "seat-no", "seat " + seat + (data.rules.partners ? " · team " + stockIndex : "")));
    if (frame.to_move === seat && !atEnd()) head.append(el("span", "badge turn", "to move"));
    if (typeof data.view === "number" && data.view === seat) head.append(el("span", "badge you", "this view"));
    box.append(head);
    const row = el("div", "seat-row");

    const stock = frame.stocks[stockIndex];
    const stockBox = el("div", "stock");
    stockBox.dataset.count = stock.count;
    stockBox.dataset.top = stock.visible.length ? stock.visible[0] : "";
    const stack = el("div", "stack");
    if (stock.count > stock.visible.length) stack.append(back("under"));
    stock.visible.slice().reverse().forEach((r, i, all) => stack.append(card(r, i === all.length - 1 ? "top" : "open")));
    if (!stock.count) stack.append(slot("empty"));
    stockBox.append(el("div", "label", data.rules.partners ? "team stock" : "stock"), stack, el("div", "count", stock.count + " left"));
    if (lastMove && lastMove.seat === seat && lastMove.move.startsWith("S:")) stockBox.classList.add("from");
    row.append(stockBox);

    const discards = el("div", "discards");
    frame.discards[seat].forEach((pile, i) => {
      const p = el("div", "discard-pile");
      p.dataset.pile = i;
      p.dataset.cards = pile.join(",");
      if (!pile.length) p.append(slot("D" + (i + 1)));
      // A long pile shows its last FANNED cards (the ones that matter), with its size on it.
      const shown = pile.slice(-FANNED);
      if (pile.length > FANNED) p.append(el("div", "more", "+" + (pile.length - FANNED)));
      shown.forEach((r, j) => p.append(card(r, j === shown.length - 1 ? "top" : "under")));
      if (pile.length > 1) p.append(el("span", "pile-size", pile.length));
      if (lastMove && lastMove.seat === seat && lastMove.move.endsWith(">D" + i)) p.classList.add("target");
      discards.append(p);
    });
    row.append(el("div", "label vertical", "discards"), discards);

    const hand = el("div", "hand");
    const cards = frame.hands[seat];
    hand.dataset.size = frame.hand_sizes[seat];
    if (cards) {
      hand.dataset.cards = cards.join(",");
      cards.forEach((r) => hand.append(card(r)));
    } else {
      hand.dataset.hidden = "true";
      for (let i = 0; i < frame.hand_sizes[seat]; i++) hand.append(back("small"));
    }
    if (!frame.hand_sizes[seat]) hand.append(el("span", "empty", "no cards"));
    row.append(el("div", "label vertical", "hand " + frame.hand_sizes[seat]), hand);
    box.append(row);
    return box;
  }

  function drawCentre(frame, lastMove) {
    const mid = el("section", "centre");
    const draw = el("div", "draw-pile");
    draw.dataset.count = frame.draw_pile;
    draw.append(el("div", "label", "draw pile"), frame.draw_pile ? back() : slot("empty"), el("div", "count", frame.draw_pile + " cards"));
    mid.append(draw);
    const piles = el("div", "centre-piles");
    frame.centre.forEach((pile, i) => {
      const p = el("div", "centre-pile");
      p.dataset.pile = i;
      p.dataset.size = pile.length;
      p.dataset.top = pile.length ? pile[pile.length - 1] : "";
      p.append(el("div", "label", "centre " + (i + 1)));
      if (pile.length) {
        const top = pile[pile.length - 1];
        const c = card(top, "top big");
        if (data.rules.wild.includes(top)) c.append(el("span", "as", "= " + cardName(pile.length)));
        p.append(c);
      } else {
        p.append(slot("A"));
      }
      p.append(el("div", "count", pile.length ? "at " + cardName(pile.length) + (pile.length < 12 ? " · needs " + cardName(pile.length + 1) : "") : "needs A"));
      if (lastMove && lastMove.move.endsWith(">C" + i)) p.classList.add("target");
      piles.append(p);
    });
    mid.append(piles);
    const aside = el("div", "set-aside");
    aside.dataset.count = frame.set_aside;
    aside.append(el("div", "label", "set aside"), el("div", "count", String(frame.set_aside)));
    if (frame.set_aside) mid.append(aside);
    return mid;
  }

  const atEnd = () => step === data.frames.length - 1;
  const isWinner = (seat) => data.outcome && data.outcome.winners.includes(seat);

  function describe(move) {
    const text = move.move;
    if (text === "pass") return "passes";
    const m = /^(H|S|D(\d+)):([^>]+)>([CD])(\d+)$/.exec(text);
    if (!m) return text;
    const from = m[1] === "H" ? "hand" : m[1] === "S" ? "stock" : "discard " + (Number(m[2]) + 1);
    const to = (m[4] === "C" ? "centre " : "discard ") + (Number(m[5]) + 1);
    const card = m[3] === "*" ? cardName(0) : data.rules.deck === "skip-bo" ? cardName({A: 1, J: 11, Q: 12}[m[3]] || Number(m[3])) : m[3];
    return (m[4] === "C" ? "plays " : "discards ") + card + " from " + from + " to " + to;
  }

  function render() {
    const frame = data.frames[step];
    if (!frame) return;
    const lastMove = step > 0 ? data.moves[step - 1] : null;
    const table = $("v-table");
    table.dataset.step = step;
    table.dataset.turn = frame.turn;
    table.dataset.view = String(data.view);
    table.replaceChildren();
    const order = seatOrder();
    const top = el("div", "seats top");
    order.slice(0, -1).forEach((s) => top.append(drawSeat(frame, s, lastMove)));
    table.append(top, drawCentre(frame, lastMove), drawSeat(frame, order[order.length - 1], lastMove));
    if (lastMove) {
      const note = el("div", "last-move");
      note.append(el("b", null, data.seats[lastMove.seat]), document.createTextNode(" " + describe(lastMove)));
      table.append(note);
    }
    if (atEnd() && data.outcome) {
      const banner = el("div", "end-banner");
      banner.append(el("b", null, data.outcome.winners.length ? data.outcome.winners.map((s) => data.seats[s]).join(" & ") + " wins" : "Draw"),
                    el("span", null, data.outcome.reason));
      table.append(banner);
    }
    $("v-step").textContent = "step " + step + "/" + (data.frames.length - 1) + " · turn " + frame.turn;
    $("v-slider").value = step;
    $("v-turn").value = frame.turn;
    const items = $("v-moves").children;
    for (let i = 0; i < items.length; i++) {
      items[i].classList.toggle("played", i < step);
      items[i].classList.toggle("current", i === step - 1);
    }
    const current = items[Math.max(0, step - 1)];
    if (current) {
      const list = $("v-moves");
      const top = current.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - 40) list.scrollTop = top - list.clientHeight / 2;
    }
  }

  function buildMoves() {
    const list = $("v-moves");
    list.replaceChildren();
    let turn = -1;
    data.moves.forEach((move, i) => {
      const li = el("li", "move seat" + move.seat);
      li.dataset.index = i;
      if (move.turn !== turn) { li.classList.add("new-turn"); turn = move.turn; }
      li.append(el("span", "turn", "T" + move.turn), el("span", "who", data.seats[move.seat]), el("code", "text", move.move),
                el("span", "ms", move.us != null ? (move.us / 1000).toFixed(1) + " ms" : ""));
      if (move.debug) li.append(el("div", "debug", move.debug));
      li.addEventListener("click", () => go(i + 1));
      list.append(li);
    });
    const outcome = $("v-outcome");
    outcome.replaceChildren();
    if (data.outcome) {
      outcome.append(el("div", "result", data.outcome.winners.length ? "Won by " + data.outcome.winners.map((s) => data.seats[s]).join(" & ") : "Draw"),
                     el("div", "reason", data.outcome.reason),
                     el("div", "ending " + (data.outcome.by_rules ? "rules" : "referee"), data.outcome.ending + (data.outcome.by_rules ? " (by the rules)" : " (cut off by the referee)")));
    }
    $("v-slider").max = data.frames.length - 1;
    const title = (data.source ? data.source + " · " : "") + data.seats.join(" v ") + " · " + data.rules.name;
    $("v-title").textContent = title;
  }

  function buildViews() {
    const select = $("v-view");
    select.replaceChildren();
    const views = [];
    if (live) {
      views.push(["spectator", "spectator (public information only)"]);
    } else if (allViews) {
      views.push(["omniscient", "omniscient (every hand)"]);
      data.seats.forEach((name, seat) => views.push([String(seat), "as seat " + seat + " (" + name + ") saw it"]));
    } else {
      views.push([String(original.view), "as seat " + original.view + " (" + data.seats[original.view] + ") saw it"]);
    }
    views.forEach(([value, label]) => { const o = el("option", null, label); o.value = value; select.append(o); });
    select.value = String(data.view);
  }

  // The standalone file holds the omniscient replay anyway; the as-seat view there hides
  // the rest the way the server does: other hands become counts, other seats' debug strings go.
  function mask(doc, seat) {
    return Object.assign({}, doc, {
      view: seat,
      frames: doc.frames.map((f) => Object.assign({}, f, {hands: f.hands.map((h, s) => (s === seat ? h : null))})),
      moves: doc.moves.map((m) => { const c = Object.assign({}, m); if (m.seat !== seat) delete c.debug; return c; }),
    });
  }

  async function setView(value) {
    const seat = value === "omniscient" ? null : Number(value);
    if (config.api) {
      const url = config.api + (seat === null ? "" : "?as_seat=" + seat);
      const answer = await fetch(url);
      if (!answer.ok) return;
      data = original = await answer.json();
      $("replay-data").textContent = JSON.stringify(data).replace(/</g, "\\u003c");
      const address = new URL(window.location.href);
      if (seat === null) address.searchParams.delete("as_seat"); else address.searchParams.set("as_seat", seat);
      window.history.replaceState(null, "", address);
    } else {
      data = seat === null ? original : mask(original, seat);
    }
    buildMoves();
    render();
    $("viewer").dataset.view = String(data.view);
  }

  function go(target) {
    step = Math.max(0, Math.min(data.frames.length - 1, target));
    render();
  }

  function byTurn(delta) {
    const turn = data.frames[step].turn + delta;
    const found = data.frames.findIndex((f) => f.turn >= turn);
    go(found < 0 ? data.frames.length - 1 : found);
  }

  function play(on) {
    if (timer) { clearInterval(timer); timer = null; }
    $("v-play").textContent = on ? "⏸" : "▶";
    $("viewer").dataset.playing = on ? "true" : "false";
    if (!on) return;
    if (atEnd()) go(0);
    timer = setInterval(() => { if (atEnd()) play(false); else go(step + 1); }, Number($("v-speed").value));
  }

  $("v-first").addEventListener("click", () => go(0));
  $("v-prev").addEventListener("click", () => go(step - 1));
  $("v-next").addEventListener("click", () => go(step + 1));
  $("v-last").addEventListener("click", () => go(data.frames.length - 1));
  $("v-play").addEventListener("click", () => play(!timer));
  $("v-speed").addEventListener("change", () => { if (timer) play(true); });
  $("v-slider").addEventListener("input", (e) => go(Number(e.target.value)));
  $("v-turn").addEventListener("change", (e) => {
    const turn = Number(e.target.value);
    const found = data.frames.findIndex((f) => f.turn >= turn);
    go(found < 0 ? data.frames.length - 1 : found);
  });
  $("v-view").addEventListener("change", (e) => setView(e.target.value));
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, select, textarea")) return;
    const keys = {ArrowRight: () => go(step + 1), ArrowLeft: () => go(step - 1), " ": () => play(!timer),
                  Home: () => go(0), End: () => go(data.frames.length - 1), ArrowUp: () => byTurn(-1), ArrowDown: () => byTurn(1)};
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });

  // Live: the referee's public stream, as server-sent events (spite_web/live.py). The
  // viewer follows the newest move unless you stepped back to look at an earlier one.
  function follow(source) {
    const status = $("v-live");
    source.onmessage = (e) => {
      const m = JSON.parse(e.data);
      const following = !data.frames.length || atEnd();
      if (m.type === "match") {
        data = Object.assign({}, data, {rules: m.rules, seats: m.seats, source: "live · match " + m.match_id});
        status.textContent = "● live";
        buildViews();
      } else if (m.type === "game_start") {
        data.frames = [m.frame]; data.moves = []; data.outcome = null; step = 0;
      } else if (m.type === "step") {
        data.moves.push(m.move); data.frames.push(m.frame);
        if (following) step = data.frames.length - 1;
      } else if (m.type === "frame") {
        data.frames[data.frames.length - 1] = m.frame;
      } else if (m.type === "game_over") {
        data.outcome = m.outcome;
      } else if (m.type === "match_over" || m.type === "error") {
        status.textContent = m.type === "error" ? "stream ended: " + m.error : "match over: " + m.reason;
        status.classList.remove("live");
        source.close();
      }
      if (m.type !== "frame" && m.type !== "match") buildMoves();
      render();
      $("viewer").dataset.moves = data.moves.length;
      $("viewer").dataset.state = m.type;
    };
  }

  buildViews();
  buildMoves();
  render();
  if (live) follow(new EventSource(config.live));
  $("viewer").dataset.view = String(data.view);
  $("viewer").dataset.ready = "true";
  window.spiteViewer = {go: go, step: () => step, data: () => data};
})();
