/* MM Studio behaviour kit, our own code, MIT licence (resources/behaviours/README.md).
 * Counter buttons (like, vote).
 * Markup: <button data-mm-behaviour~="counter" data-mm-count="12"> with the shown number in a
 * [data-mm-count-value] inside it (or in the element data-mm-target="#ID" names, so an up and a
 * down vote can share one number). data-mm-step="1" (-1: a down vote); data-mm-toggle="true":
 * a second press takes the step back (a Like), with aria-pressed; data-mm-key="post-1": the
 * count is kept in this page's own localStorage. Without JS the button shows the count. */
(function () {
  'use strict';
  function load(key) {
    try { return key ? JSON.parse(window.localStorage.getItem('mm-counter:' + key)) : null; }
    catch (e) { return null; }
  }
  function save(key, value) {
    if (!key) return;
    try { window.localStorage.setItem('mm-counter:' + key, JSON.stringify(value)); } catch (e) { /* storage off */ }
  }
  function init(button) {
    if (button.getAttribute('data-mm-ready')) return;
    button.setAttribute('data-mm-ready', 'counter');
    var ref = button.getAttribute('data-mm-target');
    var display = (ref && document.querySelector(ref)) || button.querySelector('[data-mm-count-value]');
    var step = parseFloat(button.getAttribute('data-mm-step') || '1') || 1;
    var toggle = button.getAttribute('data-mm-toggle') === 'true';
    var key = button.getAttribute('data-mm-key');
    var source = display && display.hasAttribute('data-mm-count') ? display : button;
    var base = parseFloat(source.getAttribute('data-mm-count') || (display ? display.textContent : '0')) || 0;
    var state = load(key) || {value: base, pressed: false};
    if (display) display.setAttribute('aria-live', 'polite');
    function show() {
      source.setAttribute('data-mm-count', String(state.value));
      if (display) display.textContent = String(state.value);
      if (toggle) button.setAttribute('aria-pressed', state.pressed ? 'true' : 'false');
    }
    button.addEventListener('click', function (e) {
      e.preventDefault();
      var now = parseFloat(source.getAttribute('data-mm-count')) || 0;
      if (toggle) {
        state.value = state.pressed ? now - step : now + step;
        state.pressed = !state.pressed;
      } else {
        state.value = now + step;
      }
      save(key, state);
      show();
    });
    show();
  }
  function start() {
    document.querySelectorAll('[data-mm-behaviour~="counter"]').forEach(init);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
