/* MM Studio behaviour kit, our own code, MIT licence (resources/behaviours/README.md).
 * Accordion.
 * Markup: [data-mm-behaviour~="accordion"] holding pairs of a heading [data-mm-accordion-heading]
 * and its panel [data-mm-accordion-panel] (the next such element). Without JS every panel shows.
 * data-mm-single="true": opening one closes the others; data-mm-open="N": panel N starts open. */
(function () {
  'use strict';
  var n = 0;
  function init(root) {
    if (root.getAttribute('data-mm-ready')) return;
    root.setAttribute('data-mm-ready', 'accordion');
    var single = root.getAttribute('data-mm-single') === 'true';
    var open = parseInt(root.getAttribute('data-mm-open') || '-1', 10);
    var items = [];
    root.querySelectorAll('[data-mm-accordion-heading]').forEach(function (heading) {
      var panel = heading.nextElementSibling;
      while (panel && !panel.hasAttribute('data-mm-accordion-panel')) panel = panel.nextElementSibling;
      if (!panel) return;
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'mm-accordion-trigger';
      while (heading.firstChild) button.appendChild(heading.firstChild);
      heading.appendChild(button);
      if (!panel.id) panel.id = 'mm-accordion-panel-' + (++n);
      button.id = panel.id + '-trigger';
      button.setAttribute('aria-controls', panel.id);
      panel.setAttribute('role', 'region');
      panel.setAttribute('aria-labelledby', button.id);
      items.push({button: button, panel: panel});
    });
    function set(item, on) {
      item.button.setAttribute('aria-expanded', on ? 'true' : 'false');
      item.panel.hidden = !on;
    }
    items.forEach(function (item, i) {
      set(item, i === open);
      item.button.addEventListener('click', function () {
        var on = item.button.getAttribute('aria-expanded') !== 'true';
        if (single && on) items.forEach(function (other) { set(other, false); });
        set(item, on);
      });
      item.button.addEventListener('keydown', function (e) {
        var to = null, last = items.length - 1;
        if (e.key === 'ArrowDown') to = i === last ? 0 : i + 1;
        else if (e.key === 'ArrowUp') to = i === 0 ? last : i - 1;
        else if (e.key === 'Home') to = 0;
        else if (e.key === 'End') to = last;
        if (to !== null) { e.preventDefault(); items[to].button.focus(); }
      });
    });
  }
  function start() {
    document.querySelectorAll('[data-mm-behaviour~="accordion"]').forEach(init);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
