extension SessionReport {
  // The live page's Export and Import. Part of the live script's closure (`liveScript`), so it
  // uses its `token`, `reset`, `showError` and `events`.
  //
  // Export downloads the session the inspector keeps as a recording file. Import sends a
  // recording file to the inspector, which reads it with the checks and limits of any recording
  // (`pageData(importing:)`), and shows it as the page of a file: the page stops following the
  // app, and its app controls are hidden, until "Back to the app".
  static let liveRecordingsScript = #"""
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
          .then(next => showImported(file.name, next))
          .catch(error => showError("cannot import " + file.name + ": " + error.message))
          .finally(() => { importInput.value = ""; });
      });
      document.getElementById("live-back").addEventListener("click", () => {
        history.replaceState(null, "", location.pathname + location.search);
        location.reload();
      });
    """#
}
