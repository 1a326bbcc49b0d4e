/* MM Studio behaviour kit, our own code, MIT licence (resources/behaviours/README.md).
 * Form with validation and a confirmation message.
 * Markup: <form data-mm-behaviour~="form" data-mm-confirm="Thanks, {name}!"> with labelled fields
 * using the browser's own rules (required, type="email", minlength, pattern) and an optional
 * data-mm-error="message" each; an optional [data-mm-confirmation] element receives the message.
 * Without JS the browser validates the fields itself. With JS each invalid field gets its message
 * beside it (aria-invalid, aria-describedby), focus goes to the first one; a valid form is not
 * sent anywhere: it is replaced by the confirmation (role="status", focused), {field} names in
 * the message replaced by what was typed (as text, never as markup). */
(function () {
  'use strict';
  var n = 0;
  function message(field) {
    var own = field.getAttribute('data-mm-error');
    if (own) return own;
    var v = field.validity, label = field.labels && field.labels[0] ? field.labels[0].textContent.trim() : 'This field';
    label = label.replace(/\s*\*$/, '');
    if (v.valueMissing) return label + ' is required.';
    if (v.typeMismatch && field.type === 'email') return 'Enter an email address like name@example.com.';
    if (v.tooShort) return label + ' needs at least ' + field.minLength + ' characters.';
    if (v.patternMismatch) return field.title || label + ' is not in the expected format.';
    return field.validationMessage || label + ' is not valid.';
  }
  function errorFor(field) {
    var id = field.getAttribute('data-mm-error-id');
    if (id) return document.getElementById(id);
    var p = document.createElement('p');
    p.className = 'mm-field-error';
    p.id = 'mm-error-' + (++n);
    p.hidden = true;
    field.setAttribute('data-mm-error-id', p.id);
    var described = field.getAttribute('aria-describedby');
    field.setAttribute('aria-describedby', described ? described + ' ' + p.id : p.id);
    field.insertAdjacentElement('afterend', p);
    return p;
  }
  function check(field) {
    var p = errorFor(field);
    if (field.checkValidity()) {
      field.removeAttribute('aria-invalid');
      p.hidden = true;
      p.textContent = '';
      return true;
    }
    field.setAttribute('aria-invalid', 'true');
    p.textContent = message(field);
    p.hidden = false;
    return false;
  }
  function init(form) {
    if (form.getAttribute('data-mm-ready')) return;
    form.setAttribute('data-mm-ready', 'form');
    form.setAttribute('novalidate', '');
    var fields = Array.prototype.filter.call(form.elements, function (el) {
      return el.willValidate && el.type !== 'submit' && el.type !== 'button';
    });
    fields.forEach(function (field) {
      field.addEventListener('blur', function () { if (field.hasAttribute('aria-invalid')) check(field); });
      field.addEventListener('input', function () { if (field.hasAttribute('aria-invalid')) check(field); });
    });
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var bad = fields.filter(function (f) { return !check(f); });
      if (bad.length) { bad[0].focus(); return; }
      var text = (form.getAttribute('data-mm-confirm') || 'Thank you! Your message was sent.')
        .replace(/\{([\w-]+)\}/g, function (all, name) {
          var f = form.elements.namedItem(name);
          return f && 'value' in f ? String(f.value).trim() : all;
        });
      var box = form.querySelector('[data-mm-confirmation]') ||
        (form.id && document.querySelector('[data-mm-confirmation="' + form.id + '"]'));
      if (!box) {
        box = document.createElement('p');
        box.setAttribute('data-mm-confirmation', '');
        form.insertAdjacentElement('afterend', box);
      } else if (form.contains(box)) {
        form.insertAdjacentElement('afterend', box);
      }
      box.setAttribute('role', 'status');
      box.setAttribute('tabindex', '-1');
      box.className = (box.className + ' mm-confirmation').trim();
      box.textContent = text;
      box.hidden = false;
      form.hidden = true;
      form.setAttribute('data-mm-sent', 'true');
      box.focus();
    });
  }
  function start() {
    document.querySelectorAll('form[data-mm-behaviour~="form"]').forEach(init);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
