#!/usr/bin/env python3
"""Checks the DOM headless Chromium rendered for the inspector's pages (see .ci/browser)."""
import re
import sys
from html.parser import HTMLParser

folder = sys.argv[1]
failures = []


class Page(HTMLParser):
    """The text of each element with an id, the classes of leaves and rows, body attributes."""

    def __init__(self, path):
        super().__init__()
        self.text, self.stack, self.body, self.rows = {}, [], {}, 0
        self.marked = []  # (class, text) of elements marked added, removed or changed
        self.feed(open(path, encoding="utf-8").read())

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body":
            self.body = attrs
        classes = (attrs.get("class") or "").split()
        if "row" in classes:
            self.rows += 1
        mark = next((c for c in classes if c in ("added", "removed", "changed")), None)
        if tag not in ("br", "input", "meta"):
            self.stack.append((attrs.get("id") or (tag if tag in ("h1", "title") else None), mark, []))

    def handle_endtag(self, tag):
        if tag in ("br", "input", "meta") or not self.stack:
            return
        ident, mark, parts = self.stack.pop()
        text = "".join(parts)
        if ident:
            self.text[ident] = text
        if mark:
            self.marked.append((mark, text))
        if self.stack:
            self.stack[-1][2].append(text)

    def handle_data(self, data):
        if self.stack:
            self.stack[-1][2].append(data)


def expect(condition, message):
    if not condition:
        failures.append(message)


counter = Page(f"{folder}/counter-step3.dom")
expect(counter.text.get("action-count") == "7 actions", f"counter: {counter.text.get('action-count')!r}")
expect(counter.body.get("data-step") == "3", "counter: the page did not open at step 3")
expect("step 3 of 7" in counter.text.get("step-label", ""), "counter: step label")
expect(("changed", "count: 2") in counter.marked, f"counter: count 2 not marked changed: {counter.marked}")

todo_added = Page(f"{folder}/todo-step2.dom")
expect(any(m == "added" and "Buy milk" in t for m, t in todo_added.marked),
       f"todo step 2: the new todo is not marked added: {todo_added.marked}")
todo_removed = Page(f"{folder}/todo-step6.dom")
expect(any(m == "removed" and "Walk the dog" in t for m, t in todo_removed.marked),
       f"todo step 6: the deleted todo is not shown removed: {todo_removed.marked}")
expect("todos: [1 items]" in todo_removed.text.get("state", ""), "todo step 6: the list size")

queue = Page(f"{folder}/queue-step2.dom")
# The tree's marks; the list of what changed says "queue.0 removed: …".
removed = [t for m, t in queue.marked if m == "removed" and not t.startswith("queue.")]
expect(len(removed) == 1 and '"ep-1"' in removed[0],
       f"queue step 2: only ep-1 is shown removed: {queue.marked}")
expect('0: "ep-2"' in queue.text.get("state", "") and not any('"ep-2"' in t for t in removed),
       f"queue step 2: ep-2, now at index 0, is shown as removed: {queue.marked}")

large = Page(f"{folder}/large.dom")
expect(large.text.get("action-count") == "100000 actions", "large: action count")
expect(0 < large.rows < 200, f"large: {large.rows} rows in the document, not only those on screen")
first = int(large.body.get("data-first-render-ms", "999999"))
expect(first < 2000, f"large: first render after {first} ms, more than 2 s")
print(f"100,000 actions: first render after {first} ms, {large.rows} rows in the document")

problems = Page(f"{folder}/problems.dom").text.get("problems", "")
expect("500 actions (index 7 to 506) were not recorded" in problems, f"problems: gap: {problems!r}")
expect("reading stopped here" in problems, f"problems: truncated tail: {problems!r}")

# A recording whose actions and file name hold markup: nothing runs, every row is shown, and the
# strings read back as text.
for step in (1, 2, 3, 8, 10):
    page = Page(f"{folder}/hostile-step{step}.dom")
    expect("data-pwned" not in page.body, f"hostile step {step}: a script from the recording ran")
    expect(page.text.get("action-count") == "10 actions",
           f"hostile step {step}: {page.text.get('action-count')!r}")
    expect(page.rows == 11, f"hostile step {step}: {page.rows} rows instead of 11 (initial + 10)")
    expect(page.body.get("data-step") == str(step), f"hostile: the page did not open at step {step}")
hostile_dom = open(f"{folder}/hostile-step3.dom", encoding="utf-8").read()
expect("<img" not in hostile_dom.split("<script", 1)[0],
       "hostile: an element from the recording was injected into the page")
state = Page(f"{folder}/hostile-step3.dom").text.get("state", "")
expect("</script><script>document.body.dataset.pwned=2</script>" in state,
       f"hostile: the third todo's title is not shown as text: {state[:300]!r}")
title = Page(f"{folder}/hostile-step1.dom")
for element in ("h1", "title"):
    expect("hostile__DATA__<img src=x onerror=document.body.dataset.pwned=3>.jsonl"
           in title.text.get(element, ""),
           f"hostile: the file name is not the {element}'s text: {title.text.get(element)!r}")
print("hostile recording: no script ran, 10 of 10 actions listed, strings shown as text")

# Markup in keys, action type names, payloads and the state type, read without the app's code.
hostile_key = "</script><img src=x onerror=document.body.dataset.pwned=4>"
for step in (0, 1, 2, 3):
    page = Page(f"{folder}/hostile-keys-step{step}.dom")
    expect("data-pwned" not in page.body, f"hostile keys step {step}: a script from the recording ran")
    expect(page.rows == 4, f"hostile keys step {step}: {page.rows} rows instead of 4")
    dom = open(f"{folder}/hostile-keys-step{step}.dom", encoding="utf-8").read()
    expect("<img" not in dom.split("<script", 1)[0] and "<svg" not in dom.split("<script", 1)[0],
           f"hostile keys step {step}: an element from the recording was injected")
    expect(hostile_key in page.text.get("state", ""), f"hostile keys step {step}: the key is not shown as text")
rows = Page(f"{folder}/hostile-keys-step2.dom").text.get("rows", "")
expect("<svg onload=document.body.dataset.pwned=6>" in rows, f"hostile keys: the payload is not shown as text: {rows[:300]!r}")
action = Page(f"{folder}/hostile-keys-step2.dom").text.get("action", "")
expect("<svg onload=document.body.dataset.pwned=6>" in action,
       f"hostile keys: the action's values are not shown as text in its tree: {action[:300]!r}")
print("hostile keys, type names and payloads: no script ran, shown as text")

if failures:
    print("\n".join("FAILED: " + f for f in failures))
    sys.exit(1)
print("the inspector's pages show what they should")
