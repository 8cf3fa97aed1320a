import StatecraftTools

extension SessionReport {
  // The whole page, written here and embedded so that the file needs nothing from the network.
  // `__TITLE__` and `__DATA__` are replaced; the data is JSON in a script element of its own.
  package static let pageTemplate = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>__TITLE__ · Statecraft session</title>
    <style>
    :root { --row: 24px; --line: #d0d7de; --muted: #57606a; --pick: #ddf4ff;
      --added: #dafbe1; --removed: #ffebe9; --changed: #fff8c5; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
      color: #1f2328; display: grid; grid-template-rows: auto auto 1fr; height: 100vh; }
    header { padding: 8px 12px; border-bottom: 1px solid var(--line); display: flex;
      gap: 16px; align-items: baseline; flex-wrap: wrap; }
    h1 { font-size: 15px; margin: 0; }
    #controls { padding: 6px 12px; border-bottom: 1px solid var(--line); display: flex;
      gap: 12px; align-items: center; }
    #scrubber { flex: 1; }
    main { display: grid; grid-template-columns: minmax(280px, 2fr) 3fr; min-height: 0; }
    #list { overflow-y: auto; border-right: 1px solid var(--line); position: relative; }
    #rows { position: relative; }
    .row { position: absolute; left: 0; right: 0; height: var(--row); padding: 0 8px;
      display: flex; gap: 1em; white-space: nowrap; cursor: pointer; line-height: var(--row); }
    .row span { flex: none; } .row .time, .row .line { color: var(--muted); }
    .row .line { min-width: 7em; } .row .time { min-width: 8.5em; }
    .row .label { flex: 1; overflow: hidden; text-overflow: ellipsis; }
    .row.selected { background: var(--pick); }
    .row.unreplayable .label { color: var(--muted); font-style: italic; }
    .row.skipped .label { text-decoration: line-through; color: var(--muted); }
    .row.paused-here { outline: 2px solid #bf8700; outline-offset: -2px; }
    #detail { overflow: auto; padding: 8px 12px; min-height: 0; }
    h2 { font-size: 13px; margin: 12px 0 4px; color: var(--muted); }
    #state details { margin-left: 14px; } #state > details { margin-left: 0; }
    #state .leaf { margin-left: 28px; } #state > .leaf { margin-left: 0; }
    .key { color: #0550ae; } .size { color: var(--muted); }
    .added { background: var(--added); } .removed { background: var(--removed);
      text-decoration: line-through; } .changed { background: var(--changed); }
    #changes { margin: 0; padding-left: 18px; }
    #problems { color: #9a6700; margin: 0; padding-left: 18px; }
    #action details { margin-left: 14px; } #action > details { margin-left: 0; }
    #action .leaf { margin-left: 28px; } #action > .leaf { margin-left: 0; }
    #raw pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
    .hidden { display: none; }
    </style>
    </head>
    <body data-step="0">
    <header>
      <h1>__TITLE__</h1>
      <span id="action-count"></span>
      <span id="step-label"></span>
    </header>
    <div id="controls">
      <label>type <select id="filter"><option value="">all</option></select></label>
      <input id="scrubber" type="range" min="0" value="0" aria-label="step">
      <span class="size">← → j k Home End</span>
    </div>
    <main>
      <div id="list" tabindex="0"><div id="rows"></div></div>
      <div id="detail">
        <section id="problems-section" class="hidden"><h2>Problems in the recording</h2>
          <ul id="problems"></ul></section>
        <h2>Action</h2><div id="action"></div>
        <h2>What changed</h2><ul id="changes"></ul>
        <h2>State after this step</h2><div id="state"></div>
        <details id="raw"><summary>Raw JSON of the action and the state</summary>
          <h2>Action <button id="copy-action" type="button">Copy</button></h2><pre id="action-raw"></pre>
          <h2>State <button id="copy-state" type="button">Copy</button></h2><pre id="state-raw"></pre>
        </details>
      </div>
    </main>
    <script type="application/json" id="session">__DATA__</script>
    <script>
    "use strict";
    const data = JSON.parse(document.getElementById("session").textContent);
    let count = data.actions.length;
    // Set by a live page: the indices of the actions the app skips, and where it is paused.
    const skipped = new Set();
    let pausedIndex = null;
    const ROW = 24, KINDS = ["added", "removed", "changed"], BIG = 100;
    const list = document.getElementById("list"), rows = document.getElementById("rows");
    const scrubber = document.getElementById("scrubber"), filter = document.getElementById("filter");
    let shown = [];            // the steps the filter keeps; step 0 is the initial state
    let step = count;

    // The filter's key of an action, and what a list shows of it: its type without module names,
    // generics included, or a thunk's name and phase; then its values, or "(not replayable)".
    function typeName(index) { return data.types[data.actions[index][2]]; }
    function typeTitle(index) { return data.titles[data.actions[index][2]]; }
    function actionText(index) {
      const label = data.actions[index][3];
      return typeTitle(index) + (label === null ? " (not replayable)" : label === "" ? "" : " " + label);
    }

    // The state after `k` actions: the nearest checkpoint at or before it, then the changes after
    // it. A step whose state was not recorded (null) changes nothing.
    let cache = { step: 0, state: data.initial };
    function checkpointBefore(k) {
      let low = 0, high = data.checkpoints.length - 1, found = [0, data.initial];
      while (low <= high) {
        const middle = (low + high) >> 1;
        if (data.checkpoints[middle][0] <= k) { found = data.checkpoints[middle]; low = middle + 1; }
        else high = middle - 1;
      }
      return found;
    }
    function stateAfter(k) {
      if (k === cache.step) return cache.state;
      let [base, state] = checkpointBefore(k);
      if (cache.step <= k && cache.step > base) { base = cache.step; state = cache.state; }
      const holder = { root: structuredClone(state) };
      for (let i = base; i < k; i++) apply(holder, data.patches[i]);
      cache = { step: k, state: holder.root };
      return holder.root;
    }
    function apply(holder, patch) {
      if (!Array.isArray(patch)) return;  // null: not recorded; "omitted": not sent
      for (const [kind, path, value] of patch) {
        let parent = holder, key = "root";
        for (const part of path) { parent = parent[key]; key = part; if (parent == null) break; }
        if (parent == null) continue;
        if (kind === 1) {
          if (Array.isArray(parent)) parent.splice(key, 1); else delete parent[key];
        } else {
          parent[key] = structuredClone(value);
        }
      }
    }
    function valueAt(state, path) {
      let value = state;
      for (const part of path) { if (value == null) return undefined; value = value[part]; }
      return value;
    }

    // The list: only the rows on screen are in the document.
    function renderRows() {
      rows.style.height = (shown.length * ROW) + "px";
      const first = Math.max(0, Math.floor(list.scrollTop / ROW) - 10);
      const last = Math.min(shown.length, first + Math.ceil(list.clientHeight / ROW) + 20);
      const fragment = document.createDocumentFragment();
      for (let position = first; position < last; position++) {
        const k = shown[position], row = document.createElement("div");
        row.className = "row" + (k === step ? " selected" : "");
        row.style.top = (position * ROW) + "px";
        row.dataset.step = k;
        if (k === 0) {
          row.textContent = dropped() ? "state after #" + dropped() : "initial state";
        } else {
          const [line, time, , label, index] = data.actions[k - 1];
          if (label === null) row.classList.add("unreplayable");
          if (index !== null && index !== undefined && skipped.has(index)) row.classList.add("skipped");
          if (index !== null && index !== undefined && index === pausedIndex) row.classList.add("paused-here");
          row.innerHTML = '<span class="line"></span><span class="time"></span><span class="label"></span>';
          row.children[0].textContent = "#" + (dropped() + k);
          if (line !== null) row.title = "line " + line;
          row.children[1].textContent = "+" + time.toFixed(3) + "s";
          row.children[2].textContent = actionText(k - 1);
        }
        fragment.appendChild(row);
      }
      rows.replaceChildren(fragment);
    }

    // The tree of the state, with this step's changes marked and their branches open.
    function renderState() {
      const unknown = step > 0 && !Array.isArray(data.patches[step - 1]);
      const omitted = step > 0 && data.patches[step - 1] === "omitted";
      // A live page asks the app for a state it did not send: undefined until it arrives.
      const isLive = typeof window.loadedState === "function";
      const loaded = omitted && isLive ? window.loadedState(step) : undefined;
      const state = loaded !== undefined ? loaded : stateAfter(step);
      // The state before a loaded one: loaded too when it was not sent either.
      const previousOmitted = step > 1 && data.patches[step - 2] === "omitted" && isLive;
      const previousLoaded = loaded !== undefined && previousOmitted ? window.loadedState(step - 1) : undefined;
      const previous = step === 0 ? null : previousLoaded !== undefined ? previousLoaded : stateAfter(step - 1);
      const diffable = loaded !== undefined && (!previousOmitted || previousLoaded !== undefined);
      const changes = diffable ? diff(previous, loaded, []) : step > 0 && !unknown ? data.patches[step - 1] : [];
      stateAfter(step);
      // What the state shown holds marks its nodes (added, changed); what the step removed is
      // shown apart, from the previous state: after a removal at index 0, the element now at 0
      // is the one that was at 1, not the one removed.
      const marks = new Map(), removals = new Map(), open = new Set();
      for (const [kind, path] of changes) {
        (kind === 1 ? removals : marks).set(JSON.stringify(path), KINDS[kind]);
        for (let i = 0; i <= path.length; i++) open.add(JSON.stringify(path.slice(0, i)));
      }
      const tree = document.getElementById("state");
      if (!data.hasStates) {
        const note = document.createElement("p");
        note.className = "size";
        note.textContent = "This recording holds the actions only: it was recorded before format 2, or its state is not Encodable.";
        tree.replaceChildren(note);
      } else {
        tree.replaceChildren(node(null, state, [], marks, removals, open, previous));
      }
      const list = document.getElementById("changes");
      list.replaceChildren();
      for (const [kind, path, value] of changes) {
        const item = document.createElement("li");
        item.className = KINDS[kind];
        const where = path.length ? path.join(".") : "(the state)";
        const before = previous === null ? undefined : valueAt(previous, path);
        item.textContent = kind === 0 ? where + " added: " + brief(value)
          : kind === 1 ? where + " removed: " + brief(before)
          : where + ": " + brief(before) + " → " + brief(value);
        list.appendChild(item);
      }
      if (loaded !== undefined) {
        // Where the state came from, after what it changed.
        const item = document.createElement("li");
        item.className = "size";
        item.textContent = "not sent while the app dispatched faster than a frame; the app's reducer computed the state below again from the actions the app holds"
          + (diffable ? "" : " (asking for the state before it, to show what changed)");
        list.appendChild(item);
      }
      // The state shown is the state after this step unless it was not sent or not recorded.
      renderActionView(state, !unknown || loaded !== undefined);
      if (!changes.length && loaded === undefined) {
        const item = document.createElement("li");
        item.textContent = !data.hasStates ? "the recording holds no states"
          : omitted ? "not sent: while the app dispatches faster than a frame, it sends one state a frame and the last of a burst; the state below is the last one sent before this step" + (isLive ? " (asking the app for this one)" : "")
          : unknown ? "not recorded: the recorder dropped this state (its writer fell behind); the state below is the last one recorded before it"
          : step === 0 ? initialText() : "nothing";
        list.appendChild(item);
      }
    }
    // What turns `before` into `after`, as the recording's [kind, path, value] changes: by key in
    // objects, by position in arrays.
    function diff(before, after, path) {
      const out = [];
      const isObject = value => value !== null && typeof value === "object";
      if (isObject(before) && isObject(after) && Array.isArray(before) === Array.isArray(after)) {
        if (Array.isArray(after)) {
          const common = Math.min(before.length, after.length);
          for (let i = 0; i < common; i++) out.push(...diff(before[i], after[i], path.concat([i])));
          for (let i = common; i < after.length; i++) out.push([0, path.concat([i]), after[i]]);
          for (let i = before.length - 1; i >= common; i--) out.push([1, path.concat([i]), null]);
        } else {
          for (const key of Object.keys(after).sort()) {
            if (!(key in before)) out.push([0, path.concat([key]), after[key]]);
            else out.push(...diff(before[key], after[key], path.concat([key])));
          }
          for (const key of Object.keys(before).sort()) if (!(key in after)) out.push([1, path.concat([key]), null]);
        }
      } else if (JSON.stringify(before) !== JSON.stringify(after)) {
        out.push([2, path, after]);
      }
      return out;
    }
    function brief(value) {
      if (Array.isArray(value)) return "[" + value.length + " items]";
      if (value !== null && typeof value === "object") return "{" + Object.keys(value).length + " keys}";
      return JSON.stringify(value);
    }
    function node(key, value, path, marks, removals, open, previous) {
      const id = JSON.stringify(path), mark = marks.get(id);
      if (value === null || typeof value !== "object") {
        const leaf = document.createElement("div");
        leaf.className = "leaf" + (mark ? " " + mark : "");
        if (key !== null) { const k = document.createElement("span"); k.className = "key"; k.textContent = key + ": "; leaf.appendChild(k); }
        leaf.appendChild(document.createTextNode(JSON.stringify(value)));
        return leaf;
      }
      const isArray = Array.isArray(value), keys = isArray ? value.map((_, i) => i) : Object.keys(value).sort();
      const details = document.createElement("details");
      details.open = path.length === 0 || open.has(id) || keys.length <= 8;
      const summary = document.createElement("summary");
      if (mark) details.className = mark;  // an added or replaced collection: all of it
      if (key !== null) { const k = document.createElement("span"); k.className = "key"; k.textContent = key + ": "; summary.appendChild(k); }
      const size = document.createElement("span"); size.className = "size";
      size.textContent = isArray ? "[" + keys.length + " items]" : "{" + keys.length + " keys}";
      summary.appendChild(size);
      details.appendChild(summary);
      let hidden = 0;
      for (const child of keys) {
        const childPath = path.concat([child]);
        if (keys.length > BIG && !open.has(JSON.stringify(childPath))) { hidden++; continue; }
        details.appendChild(node(String(child), value[child], childPath, marks, removals, open, previous));
      }
      // What this step removed here, shown from the previous state.
      for (const id2 of removals.keys()) {
        const removedPath = JSON.parse(id2);
        if (removedPath.length !== path.length + 1 || JSON.stringify(removedPath.slice(0, -1)) !== id) continue;
        const ghost = node(String(removedPath[removedPath.length - 1]), valueAt(previous, removedPath), removedPath, new Map(), new Map(), new Set(), null);
        ghost.classList.add("removed");
        details.appendChild(ghost);
      }
      if (hidden) { const more = document.createElement("div"); more.className = "leaf size"; more.textContent = "… " + hidden + (marks.size || removals.size ? " unchanged" : " more (all in the raw JSON)"); details.appendChild(more); }
      return details;
    }

    __ACTION_VIEW__

    // The header: how many actions, and where the selected one is among them.
    // Steps the live inspector no longer keeps, before the first one shown: the page numbers the
    // steps it has as the app's session does, and says what it does not have.
    function dropped() { return window.droppedSteps || 0; }
    function initialText() {
      return dropped() ? "the state after step " + dropped() + ": the inspector no longer keeps steps 1 to " + dropped()
        : "the initial state";
    }
    function updateHeader() {
      document.getElementById("action-count").textContent = count + (count === 1 ? " action" : " actions")
        + (dropped() ? " (steps 1 to " + dropped() + " no longer kept)" : "");
      const label = document.getElementById("step-label");
      if (step === 0) { label.textContent = "step " + dropped() + " of " + (dropped() + count) + ": " + initialText(); }
      else {
        const [line, time] = data.actions[step - 1];
        label.textContent = "step " + (dropped() + step) + " of " + (dropped() + count) + ": " + actionText(step - 1)
          + (line === null ? "" : " · line " + line) + " · +" + time.toFixed(3) + " s";
      }
    }
    function select(k, scroll) {
      step = Math.max(0, Math.min(count, k));
      document.body.dataset.step = step;
      scrubber.value = step;
      updateHeader();
      history.replaceState(null, "", "#step=" + step);
      if (scroll) {
        const position = shown.indexOf(step);
        if (position >= 0) {
          const top = position * ROW;
          if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - ROW) list.scrollTop = top - list.clientHeight / 2;
        }
      }
      renderRows();
      renderState();
    }
    function move(by) {
      let position = shown.indexOf(step);
      if (position < 0) position = shown.findIndex(k => k > step) - (by > 0 ? 1 : 0);
      const next = shown[Math.max(0, Math.min(shown.length - 1, position + by))];
      if (next !== undefined) select(next, true);
    }
    function applyFilter() {
      const type = filter.value;
      shown = [0];
      for (let k = 1; k <= count; k++) if (type === "" || typeName(k - 1) === type) shown.push(k);
      renderRows();
    }

    data.types.forEach((name, i) => { const option = document.createElement("option"); option.value = name; option.textContent = data.titles[i]; filter.appendChild(option); });
    if (data.problems.length) {
      document.getElementById("problems-section").classList.remove("hidden");
      for (const problem of data.problems) { const item = document.createElement("li"); item.textContent = problem; document.getElementById("problems").appendChild(item); }
    }
    scrubber.max = count;
    scrubber.addEventListener("input", () => select(Number(scrubber.value), true));
    filter.addEventListener("change", () => { applyFilter(); select(step, true); });
    list.addEventListener("scroll", renderRows);
    rows.addEventListener("click", event => { const row = event.target.closest(".row"); if (row) select(Number(row.dataset.step), false); });
    document.addEventListener("keydown", event => {
      // Keys typed into a field are the field's: `k` in a payload does not move the step.
      if (event.target.closest("input, select, textarea")) return;
      const keys = { ArrowRight: 1, ArrowDown: 1, j: 1, ArrowLeft: -1, ArrowUp: -1, k: -1 };
      if (event.key in keys) { move(keys[event.key]); event.preventDefault(); }
      else if (event.key === "Home") { select(0, true); event.preventDefault(); }
      else if (event.key === "End") { select(count, true); event.preventDefault(); }
    });
    applyFilter();
    // `#step=N` opens the page at step N; a live page, whose steps arrive later, goes there once
    // step N arrived.
    const requested = /step=(\d+)/.exec(location.hash);
    window.requestedStep = requested ? Number(requested[1]) : null;
    select(requested ? Number(requested[1]) : count, true);
    window.addEventListener("hashchange", () => {
      const asked = /step=(\d+)/.exec(location.hash);
      if (asked && Number(asked[1]) !== step) select(Number(asked[1]), true);
    });
    document.body.dataset.firstRenderMs = Math.round(performance.now());
    </script>
    __LIVE__
    </body>
    </html>
    """#
}
