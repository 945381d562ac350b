document.addEventListener("DOMContentLoaded", () => {
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
