/* Keyboard use (WCAG 2.1: 2.4.3 focus order, 2.4.7 focus visible; tests/site/test_a11y.py).
 *
 * sphinx-book-theme takes the focus away from its colour-mode switcher and sidebar toggles
 * on every click (so that a mouse click leaves no tooltip behind). Pressed with the
 * keyboard, the button then loses the focus: the reader's place on the page is gone and
 * the button cannot be pressed again. A click made with the keyboard (Enter or Space:
 * event.detail is 0) that left the focus nowhere gives it back to the button. A click
 * that opened a dialog (the search box, the sidebar on a phone) has already moved the
 * focus into it and is left alone. */
document.addEventListener("click", (event) => {
  if (event.detail !== 0 || !(event.target instanceof Element)) {
    return;
  }
  const button = event.target.closest(
    ".theme-switch-button, .primary-toggle, .secondary-toggle");
  if (!button) {
    return;
  }
  setTimeout(() => {
    const active = document.activeElement;
    if (!active || active === document.body) {
      button.focus({ preventScroll: true });
    }
  }, 0);
});
