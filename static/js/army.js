// The army builder. Every edit answers with the whole list, swapped into #army-slot.
//
// A player edits faster than the answers come back: a number typed, then a box ticked on
// another unit, then an option picked. Each edit is sent at once; the server applies them one
// after the other (each answer carries the list's revision). Here:
//  - while other edits are still in flight, an answer is held back instead of swapped in, so the
//    form the player is filling in is not replaced by a state that does not have their last
//    edits yet (their next edit would send that stale state back);
//  - when the last answer is in, the newest state received is shown (answers may cross);
//  - an answer older than the list on screen is never shown;
//  - the editors the player had open stay open, and the field they are typing in keeps its
//    text, focus and caret.
(() => {
  "use strict";

  const inFlight = new Set();
  let sent = 0;
  let held = null; // {revision, html}: the newest answer held back while others were in flight

  const slotOf = (detail) => {
    const target = detail && detail.target;
    return target && target.matches && target.matches("[data-army-slot]") ? target : null;
  };
  const revisionOf = (xhr) => Number(xhr.getResponseHeader("X-Army-Revision")) || 0;
  const shownRevision = (slot) => {
    const army = slot.querySelector("#army");
    return army ? Number(army.dataset.revision) || 0 : 0;
  };

  const hold = (revision, html) => {
    if (!held || revision >= held.revision) held = { revision, html };
  };

  // What the swap would lose: the open editors and the field being typed in.
  const remember = (slot) => {
    const open = Array.from(slot.querySelectorAll(".unit-card details.unit-edit[open]"), (d) =>
      d.closest(".unit-card").id,
    );
    const active = document.activeElement;
    let typing = null;
    if (active && slot.contains(active) && active.form && active.form.id && active.name) {
      typing = { form: active.form.id, name: active.name, value: active.value };
      try {
        typing.start = active.selectionStart;
        typing.end = active.selectionEnd;
      } catch (_) {
        // number inputs have no selection
      }
    }
    return { open, typing };
  };

  const restore = (state) => {
    for (const id of state.open) {
      const details = document.querySelector(`#${CSS.escape(id)} details.unit-edit`);
      if (details) details.open = true;
    }
    const t = state.typing;
    if (!t) return;
    const form = document.getElementById(t.form);
    const field = form && form.elements.namedItem(t.name);
    if (!field || typeof field.focus !== "function") return;
    if ("value" in field && field.value !== t.value && field.type !== "checkbox") {
      field.value = t.value; // what the player typed and has not sent yet
      // the browser sends no change event for a value set by script: send it on leaving
      field.addEventListener(
        "blur",
        () => field.dispatchEvent(new Event("change", { bubbles: true })),
        { once: true },
      );
    }
    field.focus({ preventScroll: true });
    if (t.start != null) {
      try {
        field.setSelectionRange(t.start, t.end);
      } catch (_) {
        // not a text field
      }
    }
  };

  const swapIn = (slot, html) => {
    const state = remember(slot);
    htmx.swap(slot, html, { swapStyle: "innerHTML" });
    restore(state);
  };

  document.addEventListener("htmx:beforeRequest", (event) => {
    if (!slotOf(event.detail)) return;
    sent += 1;
    event.detail.xhr.auspexSeq = sent;
    inFlight.add(sent);
  });

  // When no edit is in flight any more, show the newest answer held, unless the page is newer.
  const settle = (slot) => {
    if (inFlight.size > 0 || !held) return;
    const newest = held;
    held = null;
    if (!newest.revision || newest.revision >= shownRevision(slot)) swapIn(slot, newest.html);
  };

  document.addEventListener("htmx:beforeSwap", (event) => {
    const slot = slotOf(event.detail);
    if (!slot) return;
    const detail = event.detail;
    inFlight.delete(detail.xhr.auspexSeq);
    if (!detail.shouldSwap) return; // an error status: htmx shows nothing, neither do we
    detail.shouldSwap = false; // swapped here, or held back
    hold(revisionOf(detail.xhr), detail.serverResponse);
    settle(slot);
  });

  // An edit that ended without an answer to swap (refused, aborted, network error): if it was
  // the last one in flight, show what the others answered.
  document.addEventListener("htmx:afterRequest", (event) => {
    const slot = slotOf(event.detail);
    if (!slot) return;
    inFlight.delete(event.detail.xhr.auspexSeq);
    settle(slot);
  });

  // Copy buttons (the share link, the text export): shown only where a script can copy.
  const showCopyButtons = () => {
    for (const button of document.querySelectorAll("button[data-copy][hidden]")) {
      button.hidden = false;
    }
  };
  document.addEventListener("DOMContentLoaded", showCopyButtons);
  document.addEventListener("htmx:afterSettle", showCopyButtons);
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("button[data-copy]");
    if (!button) return;
    const field = document.querySelector(button.dataset.copy);
    if (!field) return;
    const done = () => {
      const label = button.textContent;
      button.textContent = button.dataset.copied || label;
      button.classList.add("copied");
      setTimeout(() => {
        button.textContent = label;
        button.classList.remove("copied");
      }, 2000);
    };
    field.select();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, () => {
        if (document.execCommand("copy")) done();
      });
    } else if (document.execCommand("copy")) {
      done();
    }
  });
})();
