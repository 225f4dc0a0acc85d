// @ts-check
/*
 * The few behaviours the subscription and sign-in forms have beyond plain HTML (SPEC §2 and §5),
 * for pages that ship no app JavaScript (issue 17, target 5; decision 023). The root inlines this
 * file with the page's CSP nonce when a route asks for it (`handle = withFormEnhancements`). Every
 * form works without it; markup opts in with these attributes:
 *
 *   data-busy-label="Signing in..."  a submit button: its text while the form is on its way; a
 *                                    second submit of that form is ignored
 *   data-disabled-when-blank="ID"    a button: disabled while the input #ID holds only spaces
 *   data-shown-when="NAME=VALUE"     an element in a form: shown, and its controls sent, only
 *                                    while that radio button or checkbox is checked
 *   data-toggles-password="ID"       a button rendered `hidden`: shows and hides the password #ID
 *   data-email-from="ID"             a link: carries what the input #ID holds as its ?email=
 *   data-unchanged-label="No Changes to Save"
 *                                    a submit button: disabled, with this text, while every box
 *                                    of its form marked data-saved="true|false" is ticked as that
 *                                    says (nothing to save)
 *   data-without-script              an element meant only for the page without script: removed
 */
(() => {
  /** @param {string | undefined} id */
  const input = (id) => {
    const element = id ? document.getElementById(id) : null;
    return element instanceof HTMLInputElement ? element : null;
  };
  /** @param {string} selector */
  const each = (selector) => Array.from(document.querySelectorAll(selector));

  for (const element of each("[data-without-script]")) element.remove();

  for (const button of each("button[data-disabled-when-blank]")) {
    if (!(button instanceof HTMLButtonElement)) continue;
    const field = input(button.dataset.disabledWhenBlank);
    if (!field) continue;
    const update = () => {
      button.disabled = field.value.trim() === "";
    };
    field.addEventListener("input", update);
    update();
  }

  for (const element of each("[data-shown-when]")) {
    if (!(element instanceof HTMLElement)) continue;
    const form = element.closest("form");
    const [name, value] = (element.dataset.shownWhen ?? "").split("=");
    if (!form || !name) continue;
    const update = () => {
      const chosen = Array.from(form.elements).some(
        (control) =>
          control instanceof HTMLInputElement &&
          control.name === name &&
          control.value === value &&
          control.checked,
      );
      element.hidden = !chosen;
      // A hidden box's text is not sent: it answered a choice no longer made.
      for (const control of element.querySelectorAll("input, textarea, select")) {
        if ("disabled" in control) control.disabled = !chosen;
      }
    };
    form.addEventListener("change", update);
    update();
  }

  for (const button of each("button[data-toggles-password]")) {
    if (!(button instanceof HTMLButtonElement)) continue;
    const field = input(button.dataset.togglesPassword);
    if (!field) continue;
    button.hidden = false;
    button.addEventListener("click", () => {
      const show = field.type === "password";
      field.type = show ? "text" : "password";
      button.textContent = show ? "Hide" : "Show";
      button.setAttribute("aria-pressed", String(show));
      button.setAttribute("aria-label", show ? "Hide password" : "Show password");
    });
  }

  for (const link of each("a[data-email-from]")) {
    if (!(link instanceof HTMLAnchorElement)) continue;
    const field = input(link.dataset.emailFrom);
    if (!field) continue;
    const path = link.pathname;
    field.addEventListener("input", () => {
      const email = field.value.trim();
      link.href = email ? `${path}?${new URLSearchParams({ email })}` : path;
    });
  }

  for (const button of each("button[data-unchanged-label]")) {
    if (!(button instanceof HTMLButtonElement) || !button.form) continue;
    const form = button.form;
    const boxes = Array.from(form.querySelectorAll("input[data-saved]")).filter(
      (box) => box instanceof HTMLInputElement,
    );
    const label = button.textContent ?? "";
    const update = () => {
      const unchanged = boxes.every((box) => box.checked === (box.dataset.saved === "true"));
      button.disabled = unchanged;
      button.textContent = unchanged ? (button.dataset.unchangedLabel ?? label) : label;
    };
    form.addEventListener("change", update);
    // The browser may put back boxes ticked before a reload or a return to the page.
    window.addEventListener("pageshow", update);
    update();
  }

  /** @type {Map<HTMLButtonElement, string>} */
  const idleLabels = new Map();
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    if (form.dataset.busy) {
      event.preventDefault();
      return;
    }
    const button = event.submitter ?? form.querySelector("button[data-busy-label]");
    if (!(button instanceof HTMLButtonElement) || !button.dataset.busyLabel) return;
    form.dataset.busy = "true";
    idleLabels.set(button, button.textContent ?? "");
    button.textContent = button.dataset.busyLabel;
    button.setAttribute("aria-disabled", "true");
  });
  // Back to a page the browser kept in memory: it was left busy.
  window.addEventListener("pageshow", (event) => {
    if (!event.persisted) return;
    for (const [button, label] of idleLabels) {
      button.textContent = label;
      button.removeAttribute("aria-disabled");
      if (button.form) delete button.form.dataset.busy;
    }
    idleLabels.clear();
  });
})();
