/* MM Studio behaviour kit, our own code, MIT licence (resources/behaviours/README.md).
 * Modal dialog.
 * Markup: a dialog [data-mm-behaviour~="modal"] with an id, a heading, and optionally a close
 * button [data-mm-modal-close]; openers are links or buttons [data-mm-modal-open="#ID"] (a link
 * <a href="#ID" data-mm-modal-open> also works). Without JS the dialog is an ordinary section the
 * opener link jumps to. With JS: hidden until opened, role="dialog" aria-modal="true", focus
 * moves in and is kept inside, Escape / the close button / a click on the backdrop close it and
 * focus returns to the opener. */
(function () {
  'use strict';
  var n = 0;
  var FOCUSABLE = 'a[href],button:not([disabled]),input:not([disabled]),select:not([disabled]),' +
    'textarea:not([disabled]),[tabindex]:not([tabindex="-1"])';
  function init(dialog) {
    if (dialog.getAttribute('data-mm-ready')) return;
    dialog.setAttribute('data-mm-ready', 'modal');
    if (!dialog.id) dialog.id = 'mm-modal-' + (++n);
    var heading = dialog.querySelector('h1,h2,h3,h4,h5,h6');
    dialog.setAttribute('role', 'dialog');
    dialog.setAttribute('aria-modal', 'true');
    if (heading) {
      if (!heading.id) heading.id = dialog.id + '-title';
      dialog.setAttribute('aria-labelledby', heading.id);
    }
    dialog.setAttribute('tabindex', '-1');
    dialog.hidden = true;
    var backdrop = document.createElement('div');
    backdrop.className = 'mm-modal-backdrop';
    backdrop.hidden = true;
    dialog.parentNode.insertBefore(backdrop, dialog);
    var close = dialog.querySelector('[data-mm-modal-close]');
    if (!close) {
      close = document.createElement('button');
      close.type = 'button';
      close.setAttribute('data-mm-modal-close', '');
      close.setAttribute('aria-label', dialog.getAttribute('data-mm-close-label') || 'Close');
      close.textContent = '\u00d7';
      dialog.insertBefore(close, dialog.firstChild);
    }
    var opener = null;
    function show(from) {
      opener = from || document.activeElement;
      dialog.hidden = false;
      backdrop.hidden = false;
      dialog.classList.add('mm-modal-open');
      var first = dialog.querySelector(FOCUSABLE);
      (first || dialog).focus();
    }
    function hide() {
      if (dialog.hidden) return;
      dialog.hidden = true;
      backdrop.hidden = true;
      dialog.classList.remove('mm-modal-open');
      if (opener && opener.focus) opener.focus();
    }
    dialog.mmOpen = show;
    dialog.mmClose = hide;
    close.addEventListener('click', hide);
    backdrop.addEventListener('click', hide);
    dialog.addEventListener('keydown', function (e) {
      if (e.key === 'Escape') { e.preventDefault(); hide(); return; }
      if (e.key !== 'Tab') return;
      var items = Array.prototype.filter.call(dialog.querySelectorAll(FOCUSABLE), function (el) {
        return el.offsetParent !== null;
      });
      if (!items.length) { e.preventDefault(); return; }
      var first = items[0], last = items[items.length - 1];
      if (e.shiftKey && document.activeElement === first) { e.preventDefault(); last.focus(); }
      else if (!e.shiftKey && document.activeElement === last) { e.preventDefault(); first.focus(); }
    });
  }
  function target(el) {
    var ref = el.getAttribute('data-mm-modal-open') || el.getAttribute('href') || '';
    if (ref.charAt(0) !== '#') return null;
    return document.getElementById(decodeURIComponent(ref.slice(1)));
  }
  function start() {
    document.querySelectorAll('[data-mm-behaviour~="modal"]').forEach(init);
    document.querySelectorAll('[data-mm-modal-open]').forEach(function (el) {
      var dialog = target(el);
      if (!dialog || !dialog.mmOpen) return;
      el.setAttribute('aria-haspopup', 'dialog');
      el.setAttribute('aria-controls', dialog.id);
      if (el.tagName === 'A') el.setAttribute('role', 'button');
      el.addEventListener('click', function (e) { e.preventDefault(); dialog.mmOpen(el); });
      el.addEventListener('keydown', function (e) {
        if (el.tagName === 'A' && e.key === ' ') { e.preventDefault(); dialog.mmOpen(el); }
      });
    });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
