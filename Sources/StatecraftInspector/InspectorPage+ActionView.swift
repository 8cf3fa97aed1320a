import StatecraftTools

extension SessionReport {
  // The selected step's action on the page of a file and on the live page: its values as a
  // tree, and the action and the state as raw JSON to copy. Part of the page's main script
  // (`__ACTION_VIEW__` in `pageTemplate`), so it uses the page's `data`, `step` and `node`.
  //
  // Everything from the recording is set with `textContent`, never as markup; what is copied is
  // the JSON text itself. The raw views are written only while they are open, and a copy writes
  // its JSON when pressed, so a page that follows a busy app does not encode its state each frame.
  static let actionViewScript = #"""
    const rawView = document.getElementById("raw");
    const copyAction = document.getElementById("copy-action"), copyState = document.getElementById("copy-state");
    let rawState = null, rawStateKnown = false;
    // The qualified type of the action at `index`: a thunk's lifecycle is filtered by its type,
    // name and phase, and titled by its name and phase.
    function rawTypeName(index) {
      const key = typeName(index), title = typeTitle(index);
      return key.endsWith(" " + title) ? key.slice(0, key.length - title.length - 1) : key;
    }
    // The selected action as the recording holds it: its type and its values, or null for the
    // initial state.
    function rawAction() {
      if (step === 0) return null;
      const payload = data.actions[step - 1][5];
      return { type: rawTypeName(step - 1), payload: payload === undefined ? null : payload };
    }
    function note(text) {
      const item = document.createElement("div");
      item.className = "leaf size";
      item.textContent = text;
      return item;
    }
    // Called by renderState with the state it shows, and whether that is the state after this
    // step (not the last one sent or recorded before it).
    function renderActionView(state, known) {
      rawState = state;
      rawStateKnown = known && data.hasStates;
      const view = document.getElementById("action");
      const payload = step === 0 ? undefined : data.actions[step - 1][5];
      if (step === 0) view.replaceChildren(note("none: the initial state"));
      else if (payload === null || payload === undefined) {
        view.replaceChildren(note(data.actions[step - 1][3] === null
          ? "recorded by its type only: register its type in the app's ActionRegistry to record its values"
          : "no values recorded"));
      } else if (payload !== null && typeof payload === "object" && Object.keys(payload).length === 0) {
        view.replaceChildren(note("no values"));
      } else {
        view.replaceChildren(node(null, payload, [], new Map(), new Map(), new Set(), null));
      }
      if (rawView.open) renderRaw();
    }
    function renderRaw() {
      const action = rawAction();
      document.getElementById("action-raw").textContent = action === null
        ? "(the initial state: no action)" : JSON.stringify(action, null, 2);
      document.getElementById("state-raw").textContent = rawStateKnown ? JSON.stringify(rawState, null, 2)
        : !data.hasStates ? "(the recording holds no states)"
        : "(not known: this step's state was not sent or not recorded)";
      copyAction.disabled = action === null;
      copyState.disabled = !rawStateKnown;
    }
    rawView.addEventListener("toggle", () => { if (rawView.open) renderRaw(); });
    // Copies `text`: through the clipboard API where the page may use it, else by selecting it.
    function copyText(text, button) {
      const done = copied => {
        document.body.dataset.copied = copied ? button.id : "failed";
        button.textContent = copied ? "Copied" : "Copy failed: select the text";
        setTimeout(() => { button.textContent = "Copy"; }, 1500);
      };
      const bySelection = () => {
        const area = document.createElement("textarea");
        area.value = text;
        area.style.position = "fixed"; area.style.opacity = "0";
        document.body.appendChild(area);
        area.select();
        let copied = false;
        try { copied = document.execCommand("copy"); } catch (error) { copied = false; }
        area.remove();
        done(copied);
      };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(() => done(true), bySelection);
      else bySelection();
    }
    copyAction.addEventListener("click", () => {
      const action = rawAction();
      if (action !== null) copyText(JSON.stringify(action, null, 2), copyAction);
    });
    copyState.addEventListener("click", () => {
      if (rawStateKnown) copyText(JSON.stringify(rawState, null, 2), copyState);
    });
    """#
}
