import StatecraftTools

extension SessionReport {
  /// The page `inspect --live` serves: the session page with no actions yet, and a script that
  /// receives the app's actions from the inspector as they happen (Server-Sent Events) and sends
  /// the page's commands (jump, resume, skip, dispatch) back.
  ///
  /// Everything from the app is shown with `textContent`, as on the page of a file. The token
  /// is read from the page's address and sent in a header, never written into the page.
  package static func livePage(title: String) -> String {
    let empty: JSONValue = .object([
      "types": .array([]), "titles": .array([]), "actions": .array([]), "patches": .array([]),
      "initial": .null,
      "checkpoints": .array([]), "hasStates": .bool(true), "stateType": .null,
      "startedAt": .null, "problems": .array([]),
    ])
    return fill(
      pageTemplate,
      with: [
        "__TITLE__": escapeHTML(title), "__DATA__": empty.jsonText(scriptSafe: true),
        "__ACTION_VIEW__": actionViewScript, "__LIVE__": liveScript,
      ])
  }

  static let liveScript = #"""
    <style>
    #live-panel { padding: 6px 12px; border-bottom: 1px solid var(--line); display: flex;
      gap: 10px; align-items: center; flex-wrap: wrap; background: #f6f8fa; }
    #live-panel input { font: inherit; }
    #live-status.paused { color: #9a6700; font-weight: bold; }
    #live-error { color: #cf222e; }
    #live-back, body.imported .app-only { display: none; }
    #live-test-panel { flex-basis: 100%; } #test-source { max-height: 40vh; overflow: auto; margin: 4px 0; }
    body.imported #live-back { display: inline; }
    </style>
    <div id="live-panel">
      <span id="live-status">waiting for an app to connect</span>
      <button id="live-back" type="button">Back to the app</button>
      <button id="live-jump" class="app-only" type="button">Jump the app here</button>
      <button id="live-resume" class="app-only" type="button">Resume</button>
      <button id="live-skip" class="app-only" type="button">Skip / unskip this action</button>
      <button id="live-commit" class="app-only" type="button" title="make the app's present state the base: the steps before it are forgotten">Commit</button>
      <button id="live-revert" class="app-only" type="button" title="return the app to the base, forgetting the steps after it">Revert</button>
      <button id="live-lock" class="app-only" type="button">Lock the app</button>
      <button id="live-record" class="app-only" type="button">Pause recording</button>
      <span id="live-recording"></span>
      <button id="live-export" class="app-only" type="button">Export</button>
      <label>Import <input id="live-import" type="file" accept=".jsonl,.json,application/x-ndjson"></label>
      <form id="live-dispatch" class="app-only">
        <input id="live-type" list="live-types" placeholder="action type, as the list shows it" size="28" aria-label="action type" autocomplete="off">
        <datalist id="live-types"></datalist>
        <input id="live-payload" placeholder='payload as JSON: {"add":{"_0":"milk"}}' size="36" aria-label="payload">
        <button type="submit">Dispatch</button>
      </form>
      <span id="live-error"></span>
      <details id="live-test-panel"><summary>Generate a regression test</summary>
        <form id="live-test">
          <input id="test-name" value="liveSession" size="14" aria-label="test name">
          <input id="test-module" placeholder="module: NotesCore" size="14" aria-label="module">
          <input id="test-reducer" placeholder="reducer: notesReducer" size="16" aria-label="reducer">
          <input id="test-registry" placeholder="registry: notesActions" size="16" aria-label="registry">
          <input id="test-state-type" placeholder="state type (optional)" size="16" aria-label="state type">
          <button type="submit">Generate test</button>
          <button id="copy-test" type="button" disabled>Copy</button>
        </form>
        <pre id="test-source"></pre>
      </details>
    </div>
    <script>
    "use strict";
    (() => {
      const token = new URLSearchParams(location.search).get("token") || "";
      document.body.style.gridTemplateRows = "auto auto auto 1fr";
      document.body.insertBefore(document.getElementById("live-panel"), document.getElementById("controls"));
      const statusText = document.getElementById("live-status"), errorText = document.getElementById("live-error");
      const latencies = [];
      let renderPending = false, firstNew = null;
      // The inspector keeps the session's last steps only: a page that connected late numbers its
      // steps from the first one it received, the inspector from the session's first.
      let offset = 0;
      // States the app computed on request for steps whose state it did not send, by step.
      const loaded = new Map(), requested = new Set();
      window.loadedState = k => {
        if (loaded.has(k)) return loaded.get(k);
        const action = data.actions[k - 1];
        if (!requested.has(k) && action && action[4] !== null && action[4] !== undefined) {
          requested.add(k);
          send({ command: "state", index: action[4] });
        }
        return undefined;
      };

      function showError(message) { errorText.textContent = message; document.body.dataset.liveError = message; }
      function addTypes(names, titles) {
        names.forEach((name, i) => {
          data.types.push(name); data.titles.push(titles[i]);
          const option = document.createElement("option"); option.value = name; option.textContent = titles[i]; filter.appendChild(option);
        });
      }
      // The registry's action types, offered as the dispatch's type is typed: by the name the list
      // shows, or the whole name where two types share it.
      function offerActionTypes(types) {
        const options = document.getElementById("live-types");
        options.replaceChildren();
        for (const [name, whole] of types || []) {
          const option = document.createElement("option"); option.value = name;
          if (name !== whole) option.label = whole;
          options.appendChild(option);
        }
        document.body.dataset.liveActionTypes = String((types || []).length);
      }
      function updateCount() {
        updateHeader();
        document.body.dataset.liveCount = count;
      }
      // Goes to the step `#step=N` asked for once it arrived; true if it did.
      function goToRequestedStep() {
        const asked = window.requestedStep;
        if (asked === null || asked === undefined || asked > count) return false;
        window.requestedStep = null;
        select(asked, true);
        return true;
      }
      function reset(next) {
        const wasAtEnd = step === count;
        loaded.clear(); requested.clear();
        offset = next.firstStep || 0;
        window.droppedSteps = offset;
        next.checkpoints = next.checkpoints.map(([k, state]) => [k - offset, state]);
        while (filter.options.length > 1) filter.remove(1);
        const types = next.types, titles = next.titles; next.types = []; next.titles = [];
        for (const key of Object.keys(next)) data[key] = next[key];
        addTypes(types, titles);
        offerActionTypes(next.actionTypes);
        count = data.actions.length;
        cache = { step: 0, state: data.initial };
        scrubber.max = count;
        applyFilter();
        if (!goToRequestedStep()) select(wasAtEnd ? count : Math.min(step, count), true);
        updateCount();
      }
      function append(message) {
        addTypes(message.types, message.titles);
        const wasAtEnd = step === count, type = filter.value;
        for (let i = 0; i < message.actions.length; i++) {
          data.actions.push(message.actions[i]);
          data.patches.push(message.patches[i]);
          count++;
          if (type === "" || typeName(count - 1) === type) shown.push(count);
        }
        for (const [k, state] of message.checkpoints) data.checkpoints.push([k - offset, state]);
        if (data.startedAt === null && message.startedAt !== undefined) data.startedAt = message.startedAt;
        if (message.hasInitial) { data.initial = message.initial; cache = { step: 0, state: data.initial }; }
        scrubber.max = count;
        if (firstNew === null && message.actions.length) firstNew = message.actions[0];
        if (!renderPending) {
          renderPending = true;
          requestAnimationFrame(() => render(wasAtEnd));
        }
      }
      // Once a frame, whatever arrived: the list, and the newest state if the page follows it.
      function render(follow) {
        renderPending = false;
        if (!goToRequestedStep()) {
          if (follow && window.requestedStep === null) select(count, true); else renderRows();
        }
        updateCount();
        if (firstNew !== null && data.startedAt !== null) {
          // From the app's dispatch of the oldest action drawn in this frame to now.
          const latency = Date.now() - (data.startedAt + firstNew[1]) * 1000;
          latencies.push(latency);
          if (latencies.length > 100000) latencies.shift();
          const sorted = latencies.slice().sort((a, b) => a - b);
          document.body.dataset.liveFrames = latencies.length;
          document.body.dataset.liveLatencyP50 = Math.round(sorted[Math.floor(sorted.length / 2)]);
          document.body.dataset.liveLatencyP99 = Math.round(sorted[Math.floor(sorted.length * 0.99)]);
          document.body.dataset.liveLatencyMax = Math.round(sorted[sorted.length - 1]);
        }
        firstNew = null;
      }
      function showStatus(status) {
        skipped.clear();
        for (const index of status.skipped || []) skipped.add(index);
        pausedIndex = status.pausedAt;
        document.body.dataset.livePaused = status.pausedAt === null ? "" : String(status.pausedAt);
        if (!status.connected) statusText.textContent = "no app connected";
        else if (status.pausedAt === null) statusText.textContent = "app running";
        else statusText.textContent = "app paused at step #" + stepOfIndex(status.pausedAt) + ", " + status.waiting + " waiting"
          + (status.droppedWhilePaused ? ", " + status.droppedWhilePaused + " dropped" : "");
        if (status.locked) statusText.textContent += " · locked: the app ignores its own actions"
          + (status.droppedWhileLocked ? " (" + status.droppedWhileLocked + " dropped)" : "");
        document.body.dataset.liveLocked = status.locked ? String(status.droppedWhileLocked || 0) : "";
        lockButton.textContent = status.locked ? "Unlock the app" : "Lock the app";
        statusText.className = status.pausedAt === null && !status.locked ? "" : "paused";
        renderRows();
      }
      // The row number of the action the app numbered `index`.
      function stepOfIndex(index) {
        for (let k = count; k > 0; k--) if (data.actions[k - 1][4] === index) return k;
        return "?";
      }
      function send(body) {
        errorText.textContent = "";
        return fetch("/command", {
          method: "POST", headers: { "Content-Type": "application/json", "X-Statecraft-Token": token },
          body: JSON.stringify(body),
        }).then(response => response.ok ? null : response.text().then(showError))
          .catch(error => showError(String(error)));
      }
      function selectedIndex() {
        const action = step > 0 ? data.actions[step - 1] : null;
        return action && action[4] !== null && action[4] !== undefined ? action[4] : null;
      }
      document.getElementById("live-jump").addEventListener("click", () => {
        const index = selectedIndex();
        if (index === null) showError("select an action first"); else send({ command: "jump", index });
      });
      document.getElementById("live-resume").addEventListener("click", () => send({ command: "resume" }));
      document.getElementById("live-skip").addEventListener("click", () => {
        const index = selectedIndex();
        if (index === null) showError("select an action first"); else send({ command: "skip", index });
      });
      document.getElementById("live-dispatch").addEventListener("submit", event => {
        event.preventDefault();
        let payload;
        try { payload = JSON.parse(document.getElementById("live-payload").value || "{}"); }
        catch (error) { showError("the payload is not JSON: " + error.message); return; }
        send(dispatchCommand(document.getElementById("live-type").value.trim(), payload));
      });
      // A thunk's row shows its name and phase ("feed/refresh · fulfilled"): dispatched by that
      // name, it is the lifecycle action of the type the row came with, with the name and the
      // phase filled in (and requestID 0 unless the payload gives one).
      function dispatchCommand(typed, payload) {
        const i = data.titles.indexOf(typed), split = typed.lastIndexOf(" · ");
        const key = i >= 0 ? data.types[i] : "";
        if (split > 0 && key.endsWith(" " + typed) && payload !== null && typeof payload === "object" && !Array.isArray(payload)) {
          const type = key.slice(0, key.length - typed.length - 1);
          const lifecycle = Object.assign({ name: typed.slice(0, split), phase: typed.slice(split + 3), requestID: 0 }, payload);
          return { command: "dispatch", type, payload: lifecycle };
        }
        return { command: "dispatch", type: typed, payload };
      }
      // While recording is paused, the page lists nothing new and counts what it did not list;
      // on resume it asks the inspector for its whole session again (`liveRecordingsScript`).
      let events = null, recordingPaused = false;
    \#(SessionReport.liveRecordingsScript)
      function connect() {
        events = new EventSource("/events?token=" + encodeURIComponent(token));
        events.addEventListener("reset", event => {
          if (recordingPaused) return;
          const next = JSON.parse(event.data);
          const came = whatCameWhilePaused(next);
          reset(next);
          if (came !== null) showWhatCame(came);
        });
        events.addEventListener("actionTypes", event => offerActionTypes(JSON.parse(event.data).actionTypes));
        events.addEventListener("steps", event => {
          const message = JSON.parse(event.data);
          if (recordingPaused) notListed(message.actions.length); else append(message);
        });
        events.addEventListener("status", event => showStatus(JSON.parse(event.data)));
        events.addEventListener("state", event => {
          const message = JSON.parse(event.data), k = message.step - offset;
          loaded.set(k, message.state);
          document.body.dataset.liveLoaded = String(loaded.size);
          if (k === step || k === step - 1) renderState();
        });
        events.addEventListener("problem", event => showError(JSON.parse(event.data).error));
        events.addEventListener("open", () => { document.body.dataset.liveConnected = "true"; });
        events.addEventListener("error", () => { statusText.textContent = "the inspector is not reachable"; });
      }
      connect();
    })();
    </script>
    """#
}
