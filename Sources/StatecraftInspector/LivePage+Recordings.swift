import StatecraftTools

extension SessionReport {
  // The live page's Lock, Pause recording, Export and Import. Part of the live script's closure
  // (`liveScript`), so it uses its `token`, `send`, `reset`, `showError`, `events` and `connect`.
  //
  // Lock sends a command: the app drops its own actions while locked. Pause recording is the
  // page's: it counts what it does not list, and on resume reconnects, so that the inspector
  // sends what it keeps, and says how many steps came meanwhile and how many it no longer keeps.
  //
  // Export downloads the session the inspector keeps as a recording file. Import sends a
  // recording file to the inspector, which reads it with the checks and limits of any recording
  // (`pageData(importing:)`), and shows it as the page of a file: the page stops following the
  // app, and its app controls are hidden, until "Back to the app".
  static let liveRecordingsScript = #"""
      // Commit and revert: the app makes its present state the base, or returns to it; either
      // way the inspector forgets the steps and sends the page the base (a reset).
      document.getElementById("live-commit").addEventListener("click", () => send({ command: "commit" }));
      document.getElementById("live-revert").addEventListener("click", () => send({ command: "revert" }));
      // Lock: the app drops the actions it dispatches itself; the page's dispatches pass.
      const lockButton = document.getElementById("live-lock");
      lockButton.addEventListener("click", () => {
        send({ command: "lock", locked: document.body.dataset.liveLocked === undefined || document.body.dataset.liveLocked === "" });
      });
      // Pause recording: the page stops listing, the app and the inspector go on.
      const recordButton = document.getElementById("live-record"), recordingText = document.getElementById("live-recording");
      let notListedCount = 0, pausedAfter = null;
      function notListed(actions) {
        notListedCount += actions;
        recordingText.textContent = "recording paused: " + notListedCount + " new action" + (notListedCount === 1 ? "" : "s") + " not listed";
        document.body.dataset.liveNotListed = String(notListedCount);
      }
      recordButton.addEventListener("click", () => {
        if (!recordingPaused) {
          recordingPaused = true;
          notListedCount = 0;
          pausedAfter = { total: offset + count, startedAt: data.startedAt };
          recordButton.textContent = "Resume recording";
          document.body.dataset.liveRecordingPaused = "1";
          notListed(0);
        } else {
          recordingPaused = false;
          recordButton.textContent = "Pause recording";
          document.body.dataset.liveRecordingPaused = "";
          // The inspector sends what it keeps of the session to a page that connects.
          events.close();
          connect();
        }
      });
      // How many steps came between pause and this reset, and how many of them the inspector no
      // longer keeps; null when recording was not paused.
      function whatCameWhilePaused(next) {
        if (pausedAfter === null) return null;
        const before = pausedAfter;
        pausedAfter = null;
        if (next.startedAt !== before.startedAt) return { restarted: true };
        const first = next.firstStep || 0;
        return { came: first + next.actions.length - before.total, notKept: Math.max(0, first - before.total) };
      }
      function showWhatCame(what) {
        recordingText.textContent = what.restarted ? "recording resumed: the app's session started again meanwhile"
          : "recording resumed: " + what.came + " action" + (what.came === 1 ? "" : "s") + " came while paused"
            + (what.notKept ? "; the " + what.notKept + " oldest of them are no longer kept by the inspector" : "");
        document.body.dataset.liveCame = what.restarted ? "restarted" : String(what.came);
      }
      const maximumImport = \#(SessionReport.maximumImportBytes);
      document.getElementById("live-export").addEventListener("click", () => {
        errorText.textContent = "";
        fetch("/export", { headers: { "X-Statecraft-Token": token } })
          .then(response => response.ok ? response.blob() : response.text().then(text => { throw new Error(text.trim()); }))
          .then(blob => {
            const link = document.createElement("a");
            link.href = URL.createObjectURL(blob);
            link.download = "session-" + new Date().toISOString().replace(/[:.]/g, "-") + ".jsonl";
            document.body.appendChild(link);
            link.click();
            link.remove();
            setTimeout(() => URL.revokeObjectURL(link.href), 60000);
            document.body.dataset.liveExported = String(blob.size);
          })
          .catch(error => showError("export: " + error.message));
      });
      function showProblems(problems) {
        const items = document.getElementById("problems");
        items.replaceChildren();
        for (const problem of problems || []) {
          const item = document.createElement("li"); item.textContent = problem; items.appendChild(item);
        }
        document.getElementById("problems-section").classList.toggle("hidden", !(problems || []).length);
      }
      function showImported(name, next) {
        events.close();
        // A file's states come from the file: nothing is asked of the app.
        window.loadedState = undefined;
        skipped.clear();
        pausedIndex = null;
        document.body.classList.add("imported");
        document.body.dataset.liveImported = name;
        document.querySelector("h1").textContent = name;
        document.title = name + " · Statecraft session";
        statusText.textContent = "showing the file " + name + ", imported: the app is not shown";
        statusText.className = "";
        showProblems(next.problems);
        reset(next);
      }
      // Generate test: the inspector writes the test of the live session, or of the file shown.
      let importedFile = null;
      const testSource = document.getElementById("test-source"), copyTest = document.getElementById("copy-test");
      document.getElementById("live-test").addEventListener("submit", event => {
        event.preventDefault();
        errorText.textContent = "";
        const query = new URLSearchParams();
        for (const [key, id] of [["name", "test-name"], ["module", "test-module"], ["reducer", "test-reducer"],
                                 ["registry", "test-registry"], ["stateType", "test-state-type"]]) {
          query.set(key, document.getElementById(id).value.trim());
        }
        fetch("/test?" + query, {
          method: "POST", headers: { "X-Statecraft-Token": token, "Content-Type": "application/x-ndjson" },
          body: importedFile === null ? "" : importedFile,
        }).then(response => response.text().then(text => { if (!response.ok) throw new Error(text.trim()); return text; }))
          .then(source => {
            testSource.textContent = source;
            copyTest.disabled = false;
            document.body.dataset.liveTestBytes = String(source.length);
          })
          .catch(error => showError("no test: " + error.message));
      });
      copyTest.addEventListener("click", () => copyText(testSource.textContent, copyTest));
      const importInput = document.getElementById("live-import");
      importInput.addEventListener("change", () => {
        const file = importInput.files[0];
        if (!file) return;
        if (file.size > maximumImport) {
          showError("cannot import " + file.name + ": it holds " + file.size + " bytes; a page imports at most "
            + maximumImport + ": open it with `inspect FILE --html PAGE` instead");
          importInput.value = "";
          return;
        }
        errorText.textContent = "";
        fetch("/import", {
          method: "POST", headers: { "X-Statecraft-Token": token, "Content-Type": "application/x-ndjson" }, body: file,
        }).then(response => response.ok ? response.json() : response.text().then(text => { throw new Error(text.trim()); }))
          .then(next => { importedFile = file; showImported(file.name, next); })
          .catch(error => showError("cannot import " + file.name + ": " + error.message))
          .finally(() => { importInput.value = ""; });
      });
      document.getElementById("live-back").addEventListener("click", () => {
        history.replaceState(null, "", location.pathname + location.search);
        location.reload();
      });
    """#
}
