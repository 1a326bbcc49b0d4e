/* MM Studio behaviour kit, our own code, MIT licence (resources/behaviours/README.md).
 * Search / filter over a list.
 * Markup: [data-mm-behaviour~="filter"] holding a labelled search field [data-mm-filter-input],
 * optional tag buttons [data-mm-filter-tag="vegan"] (one "all" button: data-mm-filter-tag=""),
 * the items [data-mm-item] (optional data-mm-tags="vegan quick", data-mm-keywords="…"), an
 * optional empty message [data-mm-filter-empty] and count [data-mm-filter-count]. Without JS
 * every item shows. With JS typing hides the items whose text does not hold every typed word
 * (case and accents ignored), a tag button shows only its tag (aria-pressed), and the count
 * ("3 of 8 shown") is announced politely. A labelled <select data-mm-filter-select> does what the
 * tag buttons do (its option values are tags, "" for all). A labelled <select data-mm-sort>
 * reorders the items: each option value is "KEY-asc" or "KEY-desc", KEY naming the items'
 * data-mm-sort-KEY attribute (numbers compare as numbers, text as text; "text" sorts by the
 * item's own text); root data-mm-sorted="KEY-dir". */
(function () {
  'use strict';
  function fold(text) {
    return String(text).toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  }
  function init(root) {
    if (root.getAttribute('data-mm-ready')) return;
    root.setAttribute('data-mm-ready', 'filter');
    var input = root.querySelector('[data-mm-filter-input]');
    var items = Array.prototype.slice.call(root.querySelectorAll('[data-mm-item]'));
    var buttons = Array.prototype.slice.call(root.querySelectorAll('[data-mm-filter-tag]'));
    var empty = root.querySelector('[data-mm-filter-empty]');
    var count = root.querySelector('[data-mm-filter-count]');
    if (count) count.setAttribute('aria-live', 'polite');
    if (empty) empty.hidden = true;
    var tag = '';
    function apply() {
      var words = fold(input ? input.value : '').split(/\s+/).filter(Boolean);
      var shown = 0;
      items.forEach(function (item) {
        var text = fold(item.textContent + ' ' + (item.getAttribute('data-mm-keywords') || '') +
          ' ' + (item.getAttribute('data-mm-tags') || ''));
        var tags = (item.getAttribute('data-mm-tags') || '').toLowerCase().split(/\s+/);
        var ok = words.every(function (w) { return text.indexOf(w) >= 0; }) &&
          (!tag || tags.indexOf(tag) >= 0);
        item.hidden = !ok;
        if (ok) shown += 1;
      });
      if (empty) empty.hidden = shown > 0;
      if (count) count.textContent = shown + ' of ' + items.length + ' shown';
      root.setAttribute('data-mm-shown', String(shown));
    }
    if (input) {
      input.addEventListener('input', apply);
      input.addEventListener('keydown', function (e) {
        if (e.key === 'Escape' && input.value) { input.value = ''; apply(); }
      });
      var form = input.form;
      if (form) form.addEventListener('submit', function (e) { e.preventDefault(); apply(); });
    }
    buttons.forEach(function (b) {
      if (b.tagName !== 'BUTTON') b.setAttribute('role', 'button');
      b.setAttribute('aria-pressed', b.getAttribute('data-mm-filter-tag') === '' ? 'true' : 'false');
      b.addEventListener('click', function (e) {
        e.preventDefault();
        tag = b.getAttribute('data-mm-filter-tag').toLowerCase();
        buttons.forEach(function (o) { o.setAttribute('aria-pressed', o === b ? 'true' : 'false'); });
        apply();
      });
    });
    var select = root.querySelector('select[data-mm-filter-select]');
    if (select) {
      select.addEventListener('change', function () {
        tag = String(select.value || '').toLowerCase();
        apply();
      });
    }
    var sorter = root.querySelector('select[data-mm-sort]');
    if (sorter) {
      sorter.addEventListener('change', function () { sort(String(sorter.value || '')); });
    }
    function value(item, key) {
      var raw = key === 'text' ? item.textContent : item.getAttribute('data-mm-sort-' + key);
      raw = raw === null ? '' : String(raw).trim();
      var n = Number(raw);
      return raw !== '' && !isNaN(n) ? n : fold(raw);
    }
    function sort(how) {
      var cut = how.lastIndexOf('-');
      if (cut <= 0) return;
      var key = how.slice(0, cut), down = how.slice(cut + 1) === 'desc';
      var ordered = items.slice().sort(function (a, b) {
        var x = value(a, key), y = value(b, key);
        var c = x < y ? -1 : x > y ? 1 : 0;
        return down ? -c : c;
      });
      ordered.forEach(function (item) { item.parentNode.appendChild(item); });
      root.setAttribute('data-mm-sorted', how);
    }
    apply();
  }
  function start() {
    document.querySelectorAll('[data-mm-behaviour~="filter"]').forEach(init);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
