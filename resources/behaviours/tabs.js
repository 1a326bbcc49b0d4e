/* MM Studio behaviour kit, our own code, MIT licence (resources/behaviours/README.md).
 * Tabs.
 * Markup: [data-mm-behaviour~="tabs"] holding links <a href="#PANEL"> and the panels (#PANEL).
 * Without JS the links jump to the panels, all of which show. */
(function () {
  'use strict';
  var n = 0;
  function init(root) {
    if (root.getAttribute('data-mm-ready')) return;
    var links = Array.prototype.filter.call(root.querySelectorAll('a[href^="#"]'), function (a) {
      var p = document.getElementById(decodeURIComponent(a.getAttribute('href').slice(1)));
      return p && root.contains(p);
    });
    if (!links.length) return;
    root.setAttribute('data-mm-ready', 'tabs');
    var list = links[0].parentElement.closest('[data-mm-tablist]') || links[0].parentElement;
    list.setAttribute('role', 'tablist');
    var label = root.getAttribute('data-mm-label');
    if (label) list.setAttribute('aria-label', label);
    var tabs = links.map(function (a) {
      var panel = document.getElementById(decodeURIComponent(a.getAttribute('href').slice(1)));
      if (!a.id) a.id = 'mm-tab-' + (++n);
      if (a.parentElement !== list) a.parentElement.setAttribute('role', 'presentation');
      a.setAttribute('role', 'tab');
      a.setAttribute('aria-controls', panel.id);
      panel.setAttribute('role', 'tabpanel');
      panel.setAttribute('aria-labelledby', a.id);
      panel.setAttribute('tabindex', '0');
      return {tab: a, panel: panel};
    });
    function select(index, focus) {
      tabs.forEach(function (t, i) {
        var on = i === index;
        t.tab.setAttribute('aria-selected', on ? 'true' : 'false');
        t.tab.setAttribute('tabindex', on ? '0' : '-1');
        t.panel.hidden = !on;
      });
      if (focus) tabs[index].tab.focus();
      root.setAttribute('data-mm-selected', tabs[index].panel.id);
    }
    tabs.forEach(function (t, i) {
      t.tab.addEventListener('click', function (e) { e.preventDefault(); select(i, true); });
      t.tab.addEventListener('keydown', function (e) {
        var last = tabs.length - 1, to = null;
        if (e.key === 'ArrowRight' || e.key === 'ArrowDown') to = i === last ? 0 : i + 1;
        else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') to = i === 0 ? last : i - 1;
        else if (e.key === 'Home') to = 0;
        else if (e.key === 'End') to = last;
        else if (e.key === ' ' || e.key === 'Enter') to = i;
        if (to !== null) { e.preventDefault(); select(to, true); }
      });
    });
    var start = parseInt(root.getAttribute('data-mm-start') || '0', 10);
    select(start >= 0 && start < tabs.length ? start : 0, false);
  }
  function start() {
    document.querySelectorAll('[data-mm-behaviour~="tabs"]').forEach(init);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
