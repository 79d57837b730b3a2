// ovhooks ui: actions (edit, forget with undo, bulk forget) and the recall log's live rows.
// Every change is a POST with the page's CSRF token; no inline script (the CSP forbids it).
"use strict";

const csrf = document.querySelector('meta[name="csrf-token"]').content;

async function post(path, body) {
  const answer = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  const doc = await answer.json().catch(() => ({ error: "bad answer" }));
  if (!answer.ok) throw new Error(doc.error || answer.statusText);
  return doc;
}

function flash(text, undoId) {
  const box = document.getElementById("flash");
  box.textContent = text;
  if (undoId) {
    const button = document.createElement("button");
    button.type = "button";
    button.id = "undo";
    button.textContent = "Undo";
    button.addEventListener("click", async () => {
      try {
        const done = await post("/api/memory/undo", { undo: undoId });
        sessionStorage.setItem("ovhooks-restored", String(done.restored.length));
        location.reload();
      } catch (err) {
        flash(`Undo failed: ${err.message}`);
      }
    });
    box.append(" ", button);
  }
  box.hidden = false;
}

async function forget(uris, after) {
  const done = await post("/api/memory/forget", { uris });
  for (const uri of done.forgotten) {
    const row = document.querySelector(`tr[data-uri="${CSS.escape(uri)}"]`);
    if (row) row.remove();
  }
  flash(`Forgotten: ${done.forgotten.length}. You can undo this for 10 minutes.`, done.undo);
  if (after) sessionStorage.setItem("ovhooks-undo", JSON.stringify([done.undo, done.forgotten.length]));
  if (after) location.assign(after);
}

document.addEventListener("click", async (event) => {
  const target = event.target.closest("[data-forget]");
  if (target) {
    const uri = target.dataset.forget;
    // Characters that hide what a URI names are shown as code points (pages.visible).
    const shown = uri.replace(/[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]/g,
      (ch) => `<U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}>`);
    if (!confirm(`Forget this memory?\n\n${shown}`)) return;
    try { await forget([uri], target.dataset.after); } catch (err) { flash(`Forget failed: ${err.message}`); }
    return;
  }
  const bulk = event.target.closest("[data-bulk-forget]");
  if (bulk) {
    const count = Number(bulk.dataset.count);
    if (!confirm(`Forget all ${count} memories this filter shows?`)) return;
    try {
      const done = await post("/api/memories/forget", {
        scope: bulk.dataset.scope, category: bulk.dataset.category, expect: count,
      });
      document.querySelectorAll("#memories tbody tr").forEach((row) => row.remove());
      flash(`Forgotten: ${done.forgotten.length}. You can undo this for 10 minutes.`, done.undo);
    } catch (err) { flash(`Forget failed: ${err.message}`); }
  }
});

const edit = document.getElementById("edit");
if (edit) {
  edit.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const done = await post("/api/memory/edit", {
        uri: edit.dataset.uri, content: document.getElementById("content").value,
      });
      flash(done.scrubbed ? "Saved (a secret in it was redacted)." : "Saved.");
    } catch (err) { flash(`Save failed: ${err.message}`); }
  });
}

const restored = sessionStorage.getItem("ovhooks-restored");
if (restored) {
  sessionStorage.removeItem("ovhooks-restored");
  flash(`Restored ${restored} memor${restored === "1" ? "y" : "ies"}.`);
}

const pending = sessionStorage.getItem("ovhooks-undo");
if (pending) {
  sessionStorage.removeItem("ovhooks-undo");
  const [undoId, count] = JSON.parse(pending);
  flash(`Forgotten: ${count}. You can undo this for 10 minutes.`, undoId);
}

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.append(td);
  return td;
}

// The API sends null for a value the records could not read; the page shows it as "—".
function known(value) {
  return value == null ? "\u2014" : String(value);
}

const log = document.getElementById("log");
if (log) {
  let latest = Number(log.dataset.latest) || 0;
  async function poll() {
    try {
      const answer = await fetch(`/api/log?since=${latest}`, { credentials: "same-origin" });
      const doc = await answer.json();
      for (const entry of doc.entries) {
        latest = Math.max(latest, entry.t);
        const row = document.createElement("tr");
        row.className = "new";
        cell(row, new Date(entry.t * 1000).toLocaleString());
        cell(row, entry.host);
        cell(row, (entry.session || "").slice(0, 24));
        cell(row, entry.prompt);
        cell(row, entry.reason);
        const items = cell(row, "");
        for (const item of entry.items) {
          const div = document.createElement("div");
          div.textContent = `${item.uri.split("/").pop()} ${known(item.score)}`;
          items.append(div);
        }
        cell(row, known(entry.tokens));
        log.tBodies[0].prepend(row);
      }
    } catch (err) { /* the viewer restarted or the machine slept: try again later */ }
    setTimeout(poll, 1500);
  }
  setTimeout(poll, 1500);
}

const preview = document.getElementById("preview");
if (preview && preview.dataset.lazy) {
  fetch(preview.dataset.lazy, { credentials: "same-origin" })
    .then((answer) => answer.json())
    .then((doc) => {
      preview.textContent = doc.context ||
        "Nothing: memory holds no profile or memories for this project yet.";
      preview.dataset.done = "1";
    })
    .catch(() => { preview.textContent = "The preview failed: run `ovhooks doctor`."; });
}

function link(href, text) {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  return a;
}

function sessionRow(s) {
  const row = document.createElement("tr");
  row.dataset.key = s.key;
  cell(row, "").append(link(`/session?key=${encodeURIComponent(s.key)}`, s.key.slice(0, 40)));
  cell(row, s.host);
  cell(row, s.peer);
  cell(row, known(s.turns_captured));
  cell(row, known(s.messages_sent));
  cell(row, s.in_flight ? `${s.queued} (${s.in_flight} in flight)` : String(s.queued));
  const ex = s.extraction || {};
  let commits = known(s.commit_count);
  if (ex.status) commits += ` · ${ex.status}${ex.memories != null ? `, ${ex.memories} memories` : ""}`;
  cell(row, commits);
  cell(row, s.last_activity_at ? new Date(s.last_activity_at * 1000).toLocaleString() : "");
  const status = cell(row, s.error ? `${s.error.kind}: ${s.error.fix}` : (s.ended ? "ended" : "live"));
  if (s.error) status.className = "error";
  return row;
}

const sessions = document.getElementById("sessions");
if (sessions) {
  let shown = "";
  async function refresh() {
    try {
      const answer = await fetch("/api/sessions", { credentials: "same-origin" });
      const doc = await answer.json();
      const text = JSON.stringify(doc.sessions);
      if (text !== shown && doc.sessions.length) {
        shown = text;
        sessions.tBodies[0].replaceChildren(...doc.sessions.map(sessionRow));
      }
    } catch (err) { /* try again */ }
    setTimeout(refresh, 2000);
  }
  setTimeout(refresh, 2000);
}
