/* MM Studio behaviour kit, our own code, MIT licence (resources/behaviours/README.md).
 * Add / remove list items (itinerary, cart, favourites).
 * Markup: [data-mm-behaviour~="list"] holding a form [data-mm-list-add] with a labelled text
 * field, the list [data-mm-list-items] (its <li> are the first items), an optional empty message
 * [data-mm-list-empty] and count [data-mm-list-count]. data-mm-key="trip" keeps the items in this
 * page's own localStorage; data-mm-remove-label="Remove" names the remove buttons. Without JS
 * the list shows. With JS typing a name and pressing Add (or Enter) adds it, each item gets a
 * remove button ("Remove Lisbon"), and each change is announced politely. */
(function () {
  'use strict';
  function load(key) {
    try {
      var v = key ? JSON.parse(window.localStorage.getItem('mm-list:' + key)) : null;
      return Array.isArray(v) ? v.map(String) : null;
    } catch (e) { return null; }
  }
  function save(key, items) {
    if (!key) return;
    try { window.localStorage.setItem('mm-list:' + key, JSON.stringify(items)); } catch (e) { /* storage off */ }
  }
  function init(root) {
    if (root.getAttribute('data-mm-ready')) return;
    var list = root.querySelector('[data-mm-list-items]');
    if (!list) return;
    root.setAttribute('data-mm-ready', 'list');
    var form = root.querySelector('[data-mm-list-add]');
    var field = form && form.querySelector('input,textarea');
    var empty = root.querySelector('[data-mm-list-empty]');
    var count = root.querySelector('[data-mm-list-count]');
    var key = root.getAttribute('data-mm-key');
    var removeLabel = root.getAttribute('data-mm-remove-label') || 'Remove';
    var status = document.createElement('p');
    status.className = 'mm-list-status';
    status.setAttribute('role', 'status');
    root.appendChild(status);
    function texts() {
      return Array.prototype.map.call(list.querySelectorAll(':scope > li'), function (li) {
        return li.getAttribute('data-mm-value') || '';
      });
    }
    function refresh() {
      var n = list.querySelectorAll(':scope > li').length;
      if (empty) empty.hidden = n > 0;
      if (count) count.textContent = String(n);
      root.setAttribute('data-mm-count', String(n));
      save(key, texts());
    }
    function item(text) {
      var li = document.createElement('li');
      var label = document.createElement('span');
      label.textContent = text;
      li.appendChild(label);
      decorate(li, text);
      return li;
    }
    function decorate(li, text) {
      li.setAttribute('data-mm-value', text);
      var b = document.createElement('button');
      b.type = 'button';
      b.className = 'mm-list-remove';
      b.textContent = removeLabel;
      b.setAttribute('aria-label', removeLabel + ' ' + text);
      b.addEventListener('click', function () {
        var next = li.nextElementSibling || li.previousElementSibling;
        li.remove();
        status.textContent = 'Removed ' + text;
        refresh();
        var target = next && next.querySelector('button');
        (target || field || root).focus();
      });
      li.appendChild(document.createTextNode(' '));
      li.appendChild(b);
    }
    var saved = load(key);
    if (saved) {
      list.textContent = '';
      saved.forEach(function (t) { list.appendChild(item(t)); });
    } else {
      list.querySelectorAll(':scope > li').forEach(function (li) { decorate(li, li.textContent.trim()); });
    }
    if (form && field) {
      form.addEventListener('submit', function (e) {
        e.preventDefault();
        var text = field.value.trim();
        if (!text) { field.focus(); status.textContent = 'Type a name to add.'; return; }
        list.appendChild(item(text));
        field.value = '';
        field.focus();
        status.textContent = 'Added ' + text;
        refresh();
      });
    }
    refresh();
  }
  function start() {
    document.querySelectorAll('[data-mm-behaviour~="list"]').forEach(init);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
