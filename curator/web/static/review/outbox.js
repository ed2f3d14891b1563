// Writes on their way to the server (decisions, comments, suggestions, replies), kept in the browser
// until the server has stored them
// (review/offline.js): a decision made while the server cannot be reached waits here and is sent, in
// order and with its request id, when the server answers again; the server stores a request id
// at most once, so sending one again after a lost answer changes nothing. One list per reviewer
// and language, in localStorage, so a closed tab or a restarted browser loses nothing (without
// localStorage — a private window that refuses it, a full quota — the list lives in this page).
export class Outbox {
  constructor(key) {
    this.key = key;
    this.memory = [];
    this.stored = true;  // false once localStorage failed: the page's memory from then on
  }

  // The waiting entries, oldest first, read afresh (another tab of the same reviewer may
  // have sent some meanwhile).
  entries() {
    if (this.stored) {
      try {
        const raw = window.localStorage.getItem(this.key);
        return raw ? JSON.parse(raw) : [];
      } catch (err) {
        this.stored = false;
      }
    }
    return this.memory.slice();
  }

  save(entries) {
    this.memory = entries.slice();
    if (!this.stored) return;
    try {
      if (entries.length) window.localStorage.setItem(this.key, JSON.stringify(entries));
      else window.localStorage.removeItem(this.key);
    } catch (err) {
      this.stored = false;
    }
  }

  size() { return this.entries().length; }
  first() { return this.entries()[0] || null; }
  last() { const all = this.entries(); return all[all.length - 1] || null; }
  add(entry) { this.save([...this.entries(), entry]); }

  // The decisions still to be stored as made: not those undone after they were tried (`undo`).
  // (An entry without a kind is a decision: kept by an earlier version of the page.)
  pending() { return this.entries().filter((e) => !e.undo && (!e.kind || e.kind === "decision")).length; }
  // The last decision the reviewer can still undo here (one not undone already), or null.
  lastKept() { return this.entries().filter((e) => !e.undo && (!e.kind || e.kind === "decision")).pop() || null; }
  find(requestId) { return this.entries().find((e) => e.body.request_id === requestId) || null; }

  // Set fields of the entry with this request id (`tried`: it was sent at least once, so the
  // server may hold it; `undo`: undone after that, so it is sent and then undone there).
  update(requestId, fields) {
    this.save(this.entries().map((e) => (e.body.request_id === requestId ? Object.assign({}, e, fields) : e)));
  }

  // Take out the entry with this request id (sent, refused, or undone); true if it was there.
  remove(requestId) {
    const all = this.entries();
    const kept = all.filter((e) => e.body.request_id !== requestId);
    this.save(kept);
    return kept.length !== all.length;
  }
}

// Calls `attempt` (async, true once the server is back) after 0.5 s, then 1, 2 and 4 s, then
// every 5 s, until it answers true; at once when the browser says it is online again.
export class Reconnect {
  constructor(attempt) {
    this.attempt = attempt;
    this.running = false;
    this.timer = 0;
    this.delay = Reconnect.FIRST_MS;
    this.trying = false;
    window.addEventListener("online", () => { if (this.running) { this.delay = Reconnect.FIRST_MS; this.now(); } });
  }

  start() {
    if (this.running) return;
    this.running = true;
    this.delay = Reconnect.FIRST_MS;
    this.later();
  }

  later() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.now(), this.delay);
    this.delay = Math.min(Reconnect.MAX_MS, this.delay * 2);
  }

  async now() {
    clearTimeout(this.timer);
    if (this.trying) return;
    this.trying = true;
    let back = false;
    try {
      back = await this.attempt();
    } catch (err) {
      back = false;
    } finally {
      this.trying = false;
    }
    if (back) this.running = false;
    else if (this.running) this.later();
  }
}
Reconnect.FIRST_MS = 500;
Reconnect.MAX_MS = 5000;  // a few seconds: the page is back soon after the server

