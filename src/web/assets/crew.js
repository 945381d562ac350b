document.addEventListener("DOMContentLoaded", () => {
  // Times in the person's time zone (theirs when set, else the browser's): the title of every
  // <time>, and the text of those that show a date rather than "3 h ago". Sent in UTC, so they read without JavaScript too.
  var zone = document.documentElement.getAttribute("data-time-zone") || undefined;
  var format;
  var options = { dateStyle: "medium", timeStyle: "short", timeZone: zone };
  try {
    format = new Intl.DateTimeFormat(undefined, options);
  } catch (_e) {
    options.timeZone = undefined;
    format = new Intl.DateTimeFormat(undefined, options);
  }
  document.querySelectorAll("time[datetime]").forEach((time) => {
    var when = new Date(time.getAttribute("datetime"));
    if (Number.isNaN(when.getTime())) return;
    var text = format.format(when);
    time.title = text;
    if (time.getAttribute("data-show") === "absolute") time.textContent = text;
  });
  // On a narrow screen the filters fold into one control (they stay open where there is room).
  if (window.matchMedia("(max-width: 640px)").matches)
    document.querySelectorAll("details[data-fold-narrow]").forEach((fold) => {
      fold.open = false;
    });
  // A form that undoes work (dismiss) asks first; without JavaScript it submits at once.
  document.querySelectorAll("form[data-confirm]").forEach((form) => {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.getAttribute("data-confirm"))) event.preventDefault();
    });
  });
  document.querySelectorAll("button[data-copy]").forEach((button) => {
    var field = document.getElementById(button.getAttribute("data-copy"));
    if (!field) return;
    button.hidden = false;
    // An input's value, or a code block's text.
    var text = () => ("value" in field ? field.value : field.textContent);
    var select = () => {
      if (field.select) {
        field.select();
        return;
      }
      var range = document.createRange();
      range.selectNodeContents(field);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    };
    field.addEventListener("focus", select);
    button.addEventListener("click", () => {
      var done = () => {
        button.textContent = "Copied";
        setTimeout(() => {
          button.textContent = "Copy";
        }, 2000);
      };
      if (navigator.clipboard?.writeText) {
        navigator.clipboard.writeText(text()).then(done, () => {
          select();
        });
      } else {
        select();
        try {
          document.execCommand("copy");
          done();
        } catch (_e) {}
      }
    });
  });
});

// The keyboard (src/docs/notes/web-app.md#the-keyboard): j/k move through the page's items, e/a/d/s
// act on the current one through its own form, / searches, g d/b/a go, ? lists the keys, Escape
// closes menus. Keys are ignored while typing in a field. Each move is announced in #kbd-status.
document.addEventListener("DOMContentLoaded", () => {
  var items = Array.prototype.slice.call(document.querySelectorAll("[data-item]"));
  var status = document.getElementById("kbd-status");
  var help = document.getElementById("kbd-help");
  var current = 0;
  var go = null;
  var say = (text) => {
    if (status) status.textContent = text;
  };
  // After a change the page comes back; the cursor stays where it was (the next item, when the
  // acted one left the list).
  try {
    const kept = JSON.parse(sessionStorage.getItem("crew-kbd") || "null");
    sessionStorage.removeItem("crew-kbd");
    if (kept && kept.path === location.pathname && items.length) {
      current = Math.min(kept.index, items.length - 1);
      items[current].focus();
    }
  } catch (_e) {}
  // Tabbing into an item (or clicking in it) makes it the current one.
  document.addEventListener("focusin", (event) => {
    var at = items.findIndex((item) => item.contains(event.target));
    if (at >= 0) current = at;
  });
  var titleOf = (item) => {
    var title = item.querySelector(".action-title");
    return (title ? title.textContent : item.textContent).trim();
  };
  var move = (step) => {
    if (!items.length) return;
    current = Math.max(0, Math.min(items.length - 1, current + step));
    var item = items[current];
    item.focus();
    item.scrollIntoView({ block: "nearest" });
    say([current + 1, "of", items.length].join(" ").concat(": ", titleOf(item)));
  };
  var act = (key) => {
    var item = items[current];
    if (!item) return;
    var target = Array.prototype.find.call(item.querySelectorAll("[data-key]"), (el) => el.getAttribute("data-key") === key);
    if (!target) {
      say("Not possible for ".concat(titleOf(item)));
      return;
    }
    try {
      sessionStorage.setItem("crew-kbd", JSON.stringify({ path: location.pathname, index: current }));
    } catch (_e) {}
    // A form is sent as is (no confirmation: the notice that follows offers Undo); a button sends its own form with its value.
    if (target.tagName === "FORM") target.submit();
    else if (target.form) target.form.requestSubmit(target);
  };
  var closeMenus = () => {
    var closed = false;
    document.querySelectorAll("details.menu[open], details.change[open], details.confirm[open]").forEach((d) => {
      d.open = false;
      var summary = d.querySelector("summary");
      if (summary && d.contains(document.activeElement)) summary.focus();
      closed = true;
    });
    return closed;
  };
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      // An open list of keys is a <dialog>: Escape closes it by itself.
      if (!help?.open && closeMenus()) event.preventDefault();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    var t = event.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    if (help?.open) return;
    var key = event.key;
    if (go) {
      const path = { d: "/dashboard", b: "/briefing", a: "/actions" }[key];
      clearTimeout(go);
      go = null;
      if (path) {
        event.preventDefault();
        location.href = path;
      }
      return;
    }
    if (key === "g") {
      go = setTimeout(() => {
        go = null;
      }, 1500);
    } else if (key === "j") move(1);
    else if (key === "k") move(-1);
    else if (key === "e" || key === "a" || key === "d" || key === "s") act(key);
    else if (key === "/") {
      const search = document.querySelector('input[type="search"]');
      if (!search) return;
      search.focus();
    } else if (key === "?") {
      if (help?.showModal) help.showModal();
    } else return;
    event.preventDefault();
  });
});
