// millstream's web dashboard: plain JavaScript over the REST API (no build step, no CDN).
// Hash routes: #/overview, #/jobs, #/job/<id>[/checkpoints|/exceptions|/vertex/<vid>],
// #/taskmanagers, #/taskmanager/<id>[/log/<name>]. Every page is redrawn on each refresh
// (the interval /config gives); rates are computed here from successive counts.
"use strict";

const page = document.getElementById("page");
const state = { refreshMs: 3000, rates: {}, savepointDir: "", confirmCancel: false, busy: false };
const TERMINAL = ["FINISHED", "CANCELED", "FAILED"];
const MIN_WATERMARK = -9.2e18;

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

async function api(path, options) {
  const response = await fetch(path, Object.assign({ credentials: "same-origin" }, options || {}));
  const text = await response.text();
  let body = text;
  try { body = JSON.parse(text); } catch (e) { /* a log, or an error page */ }
  if (!response.ok) {
    const message = body && body.errors ? body.errors.join("; ") : `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message);
  }
  return body;
}

const esc = (v) => String(v === undefined || v === null ? "" : v).replace(/[&<>"']/g,
  (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const num = (n) => (n === undefined || n === null || Number.isNaN(n) ? "-" : Number(n).toLocaleString("en-US"));
const time = (ms) => (ms === undefined || ms < 0 ? "-" : new Date(ms).toLocaleString());
function duration(ms) {
  if (ms === undefined || ms < 0) return "-";
  if (ms < 1000) return `${ms} ms`;
  const s = Math.floor(ms / 1000), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
  return h ? `${h}h ${m}m ${s % 60}s` : m ? `${m}m ${s % 60}s` : `${(ms / 1000).toFixed(1)} s`;
}
function bytes(b) {
  if (b === undefined || b === null || b < 0) return "-";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0, v = b;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i += 1; }
  return `${i ? v.toFixed(1) : v} ${units[i]}`;
}
const watermark = (w) => (w === undefined || w === null || Number(w) <= MIN_WATERMARK ? "No watermark" : String(w));
const badge = (s) => `<span class="state ${esc(s)}">${esc(s)}</span>`;
function level(ratio) { return ratio <= 0.1 ? "ok" : ratio <= 0.5 ? "low" : "high"; }
// a ratio of Flink's back-pressure document; "NaN" where it is not measured (a legacy source's busy time)
function percent(ratio) { return typeof ratio === "number" ? `${Math.round(ratio * 100)}%` : "n/a"; }

// records per second from the previous count of the same key
function rate(key, value) {
  const now = Date.now(), prev = state.rates[key];
  if (prev && now - prev.t < 250) return prev.r;
  const r = prev ? Math.max(0, ((value - prev.v) * 1000) / (now - prev.t)) : null;
  state.rates[key] = { t: now, v: value, r: r };
  return r;
}
const perSecond = (r) => (r === null || r === undefined ? "" : ` (${num(Math.round(r))}/s)`);

function notice(text, error) {
  const box = document.getElementById("notice");
  box.textContent = text;
  box.className = error ? "notice error" : "notice";
  box.hidden = false;
  clearTimeout(notice.timer);
  notice.timer = setTimeout(() => { box.hidden = true; }, 10000);
}

function failedChange(err) {
  if (err.status === 401) {
    notice("This page has no token: open the address the JobManager printed (.../?token=...) to cancel, stop or take savepoints here.", true);
  } else {
    notice(err.message, true);
  }
}

// -- pages -------------------------------------------------------------------------------

function jobRows(jobs) {
  if (!jobs.length) return `<tr><td colspan="6" class="muted">none</td></tr>`;
  return jobs.map((j) => `<tr class="link" data-href="#/job/${esc(j.jid)}">
    <td><a href="#/job/${esc(j.jid)}">${esc(j.name)}</a></td><td>${badge(j.state)}</td>
    <td>${time(j["start-time"])}</td><td>${duration(j.duration)}</td>
    <td class="num">${num(j.tasks.running)} / ${num(j.tasks.total)}</td><td class="muted">${esc(j.jid)}</td></tr>`).join("");
}

function jobTable(title, jobs, id) {
  return `<h2>${title}</h2><table id="${id}"><thead><tr><th>Job</th><th>State</th><th>Started</th>
    <th>Duration</th><th class="num">Tasks running</th><th>Job id</th></tr></thead><tbody>${jobRows(jobs)}</tbody></table>`;
}

async function overviewPage() {
  const [overview, jobs] = await Promise.all([api("/overview"), api("/jobs/overview")]);
  const running = jobs.jobs.filter((j) => !TERMINAL.includes(j.state));
  const ended = jobs.jobs.filter((j) => TERMINAL.includes(j.state));
  const card = (value, label, id) => `<div class="card" id="${id}"><div class="value">${value}</div><div class="label">${label}</div></div>`;
  page.innerHTML = `<h1>Overview</h1><div class="cards">
    ${card(num(overview.taskmanagers), "TaskManagers", "card-taskmanagers")}
    ${card(`${num(overview["slots-available"])} / ${num(overview["slots-total"])}`, "slots available / total", "card-slots")}
    ${card(num(overview["jobs-running"]), "running jobs", "card-running")}
    ${card(num(overview["jobs-finished"]), "finished", "card-finished")}
    ${card(num(overview["jobs-cancelled"]), "cancelled", "card-cancelled")}
    ${card(num(overview["jobs-failed"]), "failed", "card-failed")}</div>
    ${jobTable("Running jobs", running, "running-jobs")}${jobTable("Completed jobs", ended, "completed-jobs")}`;
}

async function jobsPage() {
  const jobs = (await api("/jobs/overview")).jobs;
  page.innerHTML = `<h1>Jobs</h1>${jobTable("Running jobs", jobs.filter((j) => !TERMINAL.includes(j.state)), "running-jobs")}
    ${jobTable("Completed jobs", jobs.filter((j) => TERMINAL.includes(j.state)), "completed-jobs")}`;
}

// a layered layout: a vertex's column is the longest path to it from a source
function layout(nodes) {
  const byId = Object.fromEntries(nodes.map((n) => [n.id, n]));
  const column = {};
  const columnOf = (id, seen) => {
    if (column[id] !== undefined) return column[id];
    if (seen.has(id)) return 0;
    seen.add(id);
    let c = 0;
    for (const input of byId[id].inputs || []) if (byId[input.id]) c = Math.max(c, columnOf(input.id, seen) + 1);
    column[id] = c;
    return c;
  };
  nodes.forEach((n) => columnOf(n.id, new Set()));
  const rows = {};
  const W = 260, H = 118, GX = 90, GY = 26;
  const place = {};
  nodes.forEach((n) => {
    const c = column[n.id];
    rows[c] = (rows[c] || 0) + 1;
    place[n.id] = { x: 20 + c * (W + GX), y: 20 + (rows[c] - 1) * (H + GY), w: W, h: H };
  });
  const width = 40 + (Math.max(...Object.values(column)) + 1) * (W + GX) - GX;
  const height = 40 + Math.max(...Object.values(rows)) * (H + GY) - GY;
  return { place, width, height };
}

function dag(job) {
  const vertices = Object.fromEntries(job.vertices.map((v) => [v.id, v]));
  const nodes = job.plan.nodes;
  const { place, width, height } = layout(nodes);
  const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
  let edges = "", boxes = "";
  for (const node of nodes) {
    const to = place[node.id];
    for (const input of node.inputs || []) {
      const from = place[input.id];
      if (!from) continue;
      const x1 = from.x + from.w, y1 = from.y + from.h / 2, x2 = to.x - 4, y2 = to.y + to.h / 2, mx = (x1 + x2) / 2;
      edges += `<path class="edge" d="M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}"/>
        <text class="edge-label" x="${mx}" y="${(y1 + y2) / 2 - 5}" text-anchor="middle">${esc(input.ship_strategy)}</text>`;
    }
    const v = vertices[node.id], m = v.metrics, p = to;
    const ratio = m["backpressured-ratio"] || 0;
    const running = v.status === "RUNNING";
    const inRate = running ? rate(`${job.jid}/${v.id}/in`, m["read-records"]) : null;
    const outRate = running ? rate(`${job.jid}/${v.id}/out`, m["write-records"]) : null;
    boxes += `<g class="node ${level(ratio)}" data-vertex="${esc(v.id)}" transform="translate(${p.x},${p.y})">
      <title>${esc(v.name)}</title>
      <rect width="${p.w}" height="${p.h}"></rect>
      <rect class="bar" x="0" y="${p.h - 5}" width="${Math.max(2, p.w * Math.min(1, ratio))}" height="5"></rect>
      <text class="title" x="10" y="18">${esc(clip(v.name, 34))}</text>
      <text class="small" x="10" y="35">Parallelism: ${v.parallelism} · ${esc(v.status)}</text>
      <text x="10" y="53" class="records-in">In: ${num(m["read-records"])}${perSecond(inRate)}</text>
      <text x="10" y="70" class="records-out">Out: ${num(m["write-records"])}${perSecond(outRate)}</text>
      <text class="small" x="10" y="88">Backpressured: ${Math.round(ratio * 100)}%</text>
      <text class="small watermark" x="10" y="104">Watermark: ${esc(watermark(m["low-watermark"]))}</text>
    </g>`;
  }
  return `<svg class="dag" id="job-graph" viewBox="0 0 ${width} ${height}" style="max-height:${height + 10}px">
    <defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
    <path d="M 0 0 L 10 5 L 0 10 z" fill="#9aa5bb"/></marker></defs>${edges}${boxes}</svg>
    <div class="legend"><span><i style="background:var(--ok)"></i>back-pressured ≤ 10%</span>
    <span><i style="background:var(--low)"></i>≤ 50%</span><span><i style="background:var(--high)"></i>&gt; 50%</span></div>`;
}

function vertexTable(job) {
  const rows = job.vertices.map((v) => {
    const m = v.metrics;
    return `<tr class="link" data-href="#/job/${esc(job.jid)}/vertex/${esc(v.id)}">
      <td><a href="#/job/${esc(job.jid)}/vertex/${esc(v.id)}">${esc(v.name)}</a></td><td>${badge(v.status)}</td>
      <td class="num">${v.parallelism}</td><td class="num">${num(m["read-records"])}</td><td class="num">${num(m["write-records"])}</td>
      <td class="num">${bytes(m["read-bytes"])}</td><td class="num">${bytes(m["write-bytes"])}</td>
      <td>${level(m["backpressured-ratio"] || 0)}</td><td>${esc(watermark(m["low-watermark"]))}</td><td>${duration(v.duration)}</td></tr>`;
  }).join("");
  return `<table id="vertices"><thead><tr><th>Vertex</th><th>Status</th><th class="num">Parallelism</th>
    <th class="num">Records received</th><th class="num">Records sent</th><th class="num">Bytes received</th>
    <th class="num">Bytes sent</th><th>Backpressure</th><th>Watermark</th><th>Duration</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function actions(job) {
  if (TERMINAL.includes(job.state)) return "";
  return `<div class="actions" id="job-actions">
    <button class="danger ${state.confirmCancel ? "confirm" : ""}" id="cancel-job">${state.confirmCancel ? "Confirm: cancel the job" : "Cancel job"}</button>
    <input type="text" id="savepoint-dir" placeholder="savepoint directory (default: the job's)" value="${esc(state.savepointDir)}">
    <button id="trigger-savepoint">Trigger savepoint</button>
    <button id="stop-job">Stop with savepoint</button></div>`;
}

async function waitForSavepoint(jobId, requestId, what) {
  for (let i = 0; i < 600; i += 1) {
    const status = await api(`/jobs/${jobId}/savepoints/${requestId}`);
    if (status.status.id === "COMPLETED") {
      const op = status.operation || {};
      if (op["failure-cause"]) throw new ApiError(500, `${what} failed: ${op["failure-cause"]["stack-trace"]}`);
      return op.location;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new ApiError(504, `${what} did not complete in 5 minutes`);
}

function bindActions(job) {
  const cancel = document.getElementById("cancel-job");
  if (!cancel) return;
  const dir = document.getElementById("savepoint-dir");
  dir.addEventListener("input", () => { state.savepointDir = dir.value; });
  cancel.addEventListener("click", async () => {
    if (!state.confirmCancel) { state.confirmCancel = true; render(); return; }
    state.confirmCancel = false;
    try {
      await api(`/jobs/${job.jid}?mode=cancel`, { method: "PATCH" });
      notice(`Cancelling job ${job.name}.`);
    } catch (err) { failedChange(err); }
    render();
  });
  const savepoint = async (stop) => {
    const directory = state.savepointDir.trim() || null;
    const what = stop ? "Stop with savepoint" : "Savepoint";
    try {
      const body = stop ? { targetDirectory: directory, drain: false } : { "target-directory": directory, "cancel-job": false };
      const path = stop ? `/jobs/${job.jid}/stop` : `/jobs/${job.jid}/savepoints`;
      const request = await api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      notice(`${what} triggered...`);
      const location = await waitForSavepoint(job.jid, request["request-id"], what);
      notice(`${what} completed: ${location}`);
    } catch (err) { failedChange(err); }
    render();
  };
  document.getElementById("trigger-savepoint").addEventListener("click", () => savepoint(false));
  document.getElementById("stop-job").addEventListener("click", () => savepoint(true));
}

async function checkpointsTab(job) {
  const stats = await api(`/jobs/${job.jid}/checkpoints`);
  let config = null;
  try { config = await api(`/jobs/${job.jid}/checkpoints/config`); } catch (e) { /* not enabled */ }
  const c = stats.counts, latest = stats.latest;
  const rows = stats.history.map((h) => `<tr><td class="num">${h.id}</td><td>${badge(h.status)}</td><td>${esc(h.checkpoint_type)}</td>
    <td class="num">${h.num_acknowledged_subtasks} / ${h.num_subtasks}</td><td>${time(h.trigger_timestamp)}</td>
    <td>${time(h.latest_ack_timestamp)}</td><td class="num">${duration(h.end_to_end_duration)}</td>
    <td class="num">${bytes(h.checkpointed_size)}</td><td class="num">${bytes(h.state_size)}</td>
    <td class="num">${bytes(h.alignment_buffered)}</td><td class="muted" title="${esc(h.external_path || h.failure_message || "")}">${esc(h.external_path ? h.external_path.split("/").pop() : h.failure_message || "")}</td></tr>`).join("");
  const cfg = config ? `<h2>Configuration</h2><table id="checkpoint-config"><tbody>
    <tr><th>Mode</th><td>${esc(config.mode)}</td><th>Interval</th><td>${duration(config.interval)}</td></tr>
    <tr><th>Timeout</th><td>${duration(config.timeout)}</td><th>Minimum pause</th><td>${duration(config.min_pause)}</td></tr>
    <tr><th>Max concurrent</th><td>${config.max_concurrent}</td><th>State backend</th><td>${esc(config.state_backend)}</td></tr>
    <tr><th>Storage</th><td>${esc(config.checkpoint_storage)}</td><th>Tolerable failures</th><td>${config.tolerable_failed_checkpoints}</td></tr>
    </tbody></table>` : `<p class="muted">Checkpointing is not enabled for this job.</p>`;
  const last = latest.completed ? `Latest completed: #${latest.completed.id}, ${duration(latest.completed.end_to_end_duration)}, ${bytes(latest.completed.checkpointed_size)}` : "No checkpoint completed yet.";
  return `<div class="cards" id="checkpoint-counts">
    <div class="card"><div class="value">${c.total}</div><div class="label">triggered</div></div>
    <div class="card"><div class="value">${c.in_progress}</div><div class="label">in progress</div></div>
    <div class="card"><div class="value">${c.completed}</div><div class="label">completed</div></div>
    <div class="card"><div class="value">${c.failed}</div><div class="label">failed</div></div>
    <div class="card"><div class="value">${c.restored}</div><div class="label">restored</div></div></div>
    <p>${last}${latest.restored ? ` · Restored from #${latest.restored.id} (${esc(latest.restored.external_path)})` : ""}</p>
    <h2>History</h2><table id="checkpoint-history"><thead><tr><th class="num">ID</th><th>Status</th><th>Type</th>
    <th class="num">Acknowledged</th><th>Triggered</th><th>Latest acknowledgement</th><th class="num">End to end</th>
    <th class="num">Checkpointed size</th><th class="num">Full size</th><th class="num">Aligned buffered</th><th>Path / cause</th></tr></thead>
    <tbody>${rows || `<tr><td colspan="11" class="muted">no checkpoint yet</td></tr>`}</tbody></table>${cfg}`;
}

async function exceptionsTab(job) {
  const history = (await api(`/jobs/${job.jid}/exceptions`)).exceptionHistory.entries;
  if (!history.length) return `<p class="muted" id="no-exceptions">No failure so far.</p>`;
  return `<table id="exception-history"><thead><tr><th>Time</th><th>Exception</th><th>Task</th><th>TaskManager</th><th>Restart</th></tr></thead>
    <tbody>${history.map((e) => `<tr><td>${time(e.timestamp)}</td><td><details><summary><b>${esc(e.exceptionName)}</b>: ${esc(e.message)}</summary>
    <pre>${esc(e.stacktrace)}</pre></details></td><td>${esc(e.taskName || "the job")}${e.operatorName ? `<br><span class="muted">operator ${esc(e.operatorName)}</span>` : ""}</td>
    <td>${esc(e.taskManagerId || "-")}</td><td>${e.restart ? `restart ${e.restart}` : "failed the job"}</td></tr>`).join("")}</tbody></table>`;
}

async function vertexTab(job, vertexId) {
  const [detail, pressure, marks] = await Promise.all([
    api(`/jobs/${job.jid}/vertices/${vertexId}`),
    api(`/jobs/${job.jid}/vertices/${vertexId}/backpressure`),
    api(`/jobs/${job.jid}/vertices/${vertexId}/watermarks`),
  ]);
  const ratio = Object.fromEntries(pressure.subtasks.map((s) => [s.subtask, s]));
  const mark = Object.fromEntries(marks.map((m) => [m.id.split(".")[0], m.value]));
  const rows = detail.subtasks.map((s) => {
    const p = ratio[s.subtask] || { ratio: 0, idleRatio: 0, busyRatio: 0, "backpressure-level": "ok" };
    return `<tr><td class="num">${s.subtask}</td><td>${badge(s.status)}</td><td class="num">${s.attempt}</td>
      <td class="num">${num(s.metrics["read-records"])}</td><td class="num">${num(s.metrics["write-records"])}</td>
      <td class="num">${bytes(s.metrics["read-bytes"])}</td><td class="num">${bytes(s.metrics["write-bytes"])}</td>
      <td>${esc(p["backpressure-level"])}</td>
      <td class="num time-shares">${percent(p.ratio)} / ${percent(p.idleRatio)} / ${percent(p.busyRatio)}</td>
      <td>${esc(watermark(mark[s.subtask]))}</td>
      <td><a href="#/taskmanager/${esc(s["taskmanager-id"])}">${esc(s["taskmanager-id"] || "-")}</a></td><td>${duration(s.duration)}</td></tr>`;
  }).join("");
  return `<h2>${esc(detail.name)}</h2><table id="subtasks"><thead><tr><th class="num">Subtask</th><th>Status</th><th class="num">Attempt</th>
    <th class="num">Records received</th><th class="num">Records sent</th><th class="num">Bytes received</th><th class="num">Bytes sent</th>
    <th>Backpressure</th><th class="num" title="share of each second: waiting for output buffers / waiting for input / working">Backpressured / Idle / Busy</th>
    <th>Watermark</th><th>TaskManager</th><th>Duration</th></tr></thead><tbody>${rows}</tbody></table>`;
}

async function jobPage(jobId, tab, vertexId) {
  const job = await api(`/jobs/${jobId}`);
  const base = `#/job/${job.jid}`;
  const tabs = [["", "Overview"], ["/checkpoints", "Checkpoints"], ["/exceptions", "Exceptions"]];
  const current = tab === "vertex" ? "" : tab ? `/${tab}` : "";
  let body;
  if (tab === "checkpoints") body = await checkpointsTab(job);
  else if (tab === "exceptions") body = await exceptionsTab(job);
  else if (tab === "vertex" && vertexId) body = dag(job) + (await vertexTab(job, vertexId));
  else body = dag(job) + `<h2>Vertices</h2>` + vertexTable(job);
  page.innerHTML = `<h1>${esc(job.name)} ${badge(job.state)}</h1>
    <div class="muted">${esc(job.jid)} · ${esc(job["job-type"])} · started ${time(job["start-time"])} · ${duration(job.duration)}</div>
    ${actions(job)}
    <div class="tabs">${tabs.map(([suffix, label]) => `<a href="${base}${suffix}" id="tab-${label.toLowerCase()}" class="${suffix === current ? "active" : ""}">${label}</a>`).join("")}</div>
    ${body}`;
  bindActions(job);
  page.querySelectorAll("#job-graph .node").forEach((g) => g.addEventListener("click", () => {
    location.hash = `${base}/vertex/${g.dataset.vertex}`;
  }));
}

function logTable(id, logs, href) {
  return `<table id="${id}"><thead><tr><th>File</th><th class="num">Size</th><th>Modified</th></tr></thead><tbody>
    ${logs.map((l) => `<tr><td><a href="${href(l.name)}">${esc(l.name)}</a></td><td class="num">${bytes(l.size)}</td><td>${time(l.mtime)}</td></tr>`).join("") || `<tr><td colspan="3" class="muted">no log file (the output goes to the terminal that started the process)</td></tr>`}
    </tbody></table>`;
}

async function jobManagerLogPage(name) {
  const text = await api(`/jobmanager/logs/${encodeURIComponent(name)}`);
  page.innerHTML = `<h1>JobManager: ${esc(name)}</h1><pre id="log-text">${esc(text)}</pre>`;
}

async function taskManagersPage() {
  const [managers, jmLogs] = await Promise.all([
    api("/taskmanagers").then((b) => b.taskmanagers),
    api("/jobmanager/logs").then((b) => b.logs).catch(() => []),
  ]);
  const rows = managers.map((t) => `<tr class="link" data-href="#/taskmanager/${esc(t.id)}">
    <td><a href="#/taskmanager/${esc(t.id)}">${esc(t.id)}</a></td><td>${esc(t.path)}</td><td class="num">${t.dataPort}</td>
    <td class="num">${t.slotsNumber}</td><td class="num">${t.freeSlots}</td><td class="num">${t.hardware.cpuCores}</td>
    <td class="num">${bytes(t.hardware.physicalMemory)}</td><td>${time(t.timeSinceLastHeartbeat)}</td></tr>`).join("");
  page.innerHTML = `<h1>TaskManagers</h1><table id="taskmanagers"><thead><tr><th>Id</th><th>Host:pid</th><th class="num">Data port</th>
    <th class="num">Slots</th><th class="num">Free slots</th><th class="num">CPU cores</th><th class="num">Memory</th><th>Last report</th></tr></thead>
    <tbody>${rows || `<tr><td colspan="8" class="muted">none registered</td></tr>`}</tbody></table>
    <h2>JobManager logs</h2>${logTable("jm-logs", jmLogs, (name) => `#/jobmanager/log/${encodeURIComponent(name)}`)}`;
}

async function taskManagerPage(id, logName) {
  const tm = await api(`/taskmanagers/${encodeURIComponent(id)}`);
  let logs = [];
  try { logs = (await api(`/taskmanagers/${encodeURIComponent(id)}/logs`)).logs; } catch (e) { /* gone */ }
  let log = "";
  if (logName) {
    const text = await api(`/taskmanagers/${encodeURIComponent(id)}/logs/${encodeURIComponent(logName)}`);
    log = `<h2>${esc(logName)}</h2><pre id="log-text">${esc(text)}</pre>`;
  }
  const m = tm.metrics;
  page.innerHTML = `<h1>TaskManager ${esc(tm.id)}</h1><div class="muted">${esc(tm.path)} · data port ${tm.dataPort}</div>
    <div class="cards" id="tm-cards">
    <div class="card"><div class="value">${tm.freeSlots} / ${tm.slotsNumber}</div><div class="label">free / slots</div></div>
    <div class="card"><div class="value">${bytes(m.rss)}</div><div class="label">memory (resident)</div></div>
    <div class="card"><div class="value">${Math.round(m.cpuLoad * 100)}%</div><div class="label">CPU (of one core)</div></div>
    <div class="card"><div class="value">${m.threads}</div><div class="label">threads</div></div>
    <div class="card"><div class="value">${tm.hardware.cpuCores} · ${bytes(tm.hardware.physicalMemory)}</div><div class="label">machine cores · memory</div></div></div>
    <h2>Slots</h2><table id="tm-slots"><thead><tr><th class="num">Slot</th><th>Job</th></tr></thead><tbody>
    ${tm.allocatedSlots.map((s) => `<tr><td class="num">${s.index}</td><td><a href="#/job/${esc(s.jobId)}">${esc(s.jobId)}</a></td></tr>`).join("") || `<tr><td colspan="2" class="muted">all free</td></tr>`}</tbody></table>
    <h2>Logs</h2>${logTable("tm-logs", logs, (name) => `#/taskmanager/${encodeURIComponent(tm.id)}/log/${encodeURIComponent(name)}`)}${log}`;
}

// -- routing and refresh ---------------------------------------------------------------------

const routes = [
  [/^#\/overview$/, overviewPage, "overview"],
  [/^#\/jobs$/, jobsPage, "jobs"],
  [/^#\/job\/([0-9a-f]+)\/vertex\/([0-9a-f]+)$/, (j, v) => jobPage(j, "vertex", v), "jobs"],
  [/^#\/job\/([0-9a-f]+)(?:\/(checkpoints|exceptions))?$/, (j, t) => jobPage(j, t), "jobs"],
  [/^#\/taskmanagers$/, taskManagersPage, "taskmanagers"],
  [/^#\/jobmanager\/log\/(.+)$/, (name) => jobManagerLogPage(decodeURIComponent(name)), "taskmanagers"],
  [/^#\/taskmanager\/([^/]+)(?:\/log\/(.+))?$/, (id, log) => taskManagerPage(decodeURIComponent(id), log && decodeURIComponent(log)), "taskmanagers"],
];

async function render() {
  if (state.busy) return;
  state.busy = true;
  const hash = location.hash || "#/overview";
  try {
    const route = routes.find(([pattern]) => pattern.test(hash));
    if (!route) { location.hash = "#/overview"; return; }
    document.querySelectorAll("header nav a").forEach((a) => a.classList.toggle("active", a.dataset.nav === route[2]));
    const focused = document.activeElement && document.activeElement.id;
    await route[1](...hash.match(route[0]).slice(1));
    if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
    page.querySelectorAll("tr.link").forEach((row) => row.addEventListener("click", (e) => {
      if (e.target.tagName !== "A") location.hash = row.dataset.href;
    }));
    document.getElementById("refreshed").textContent = `refreshed ${new Date().toLocaleTimeString()}`;
  } catch (err) {
    const gone = err.status === undefined;
    page.innerHTML = `<h1>${gone ? "The JobManager does not answer" : "Error"}</h1><p class="muted" id="page-error">${esc(gone ? "It may have stopped (an embedded cluster ends with its job)." : err.message)}</p>`;
  } finally {
    state.busy = false;
  }
}

async function start() {
  try {
    const config = await api("/config");
    state.refreshMs = config["refresh-interval"] || 3000;
    document.getElementById("version").textContent = config["flink-version"];
  } catch (e) { /* render shows the error */ }
  window.addEventListener("hashchange", () => { state.confirmCancel = false; render(); });
  await render();
  setInterval(render, state.refreshMs);
}

start();
