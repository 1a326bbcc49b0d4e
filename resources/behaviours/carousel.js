/* MM Studio behaviour kit, our own code, MIT licence (resources/behaviours/README.md).
 * Carousel.
 * Markup: [data-mm-behaviour~="carousel"] (with data-mm-label, its name) holding slides
 * [data-mm-slide]. Without JS every slide shows, one after the other. With JS one slide shows
 * at a time, with Previous / Next buttons, a "2 of 4" status announced politely, and the arrow
 * keys inside the carousel. It never advances by itself (no motion the visitor did not ask for). */
(function () {
  'use strict';
  function init(root) {
    if (root.getAttribute('data-mm-ready')) return;
    var slides = Array.prototype.slice.call(root.querySelectorAll('[data-mm-slide]'));
    if (!slides.length) return;
    root.setAttribute('data-mm-ready', 'carousel');
    root.setAttribute('role', 'region');
    root.setAttribute('aria-roledescription', 'carousel');
    root.setAttribute('aria-label', root.getAttribute('data-mm-label') || 'Carousel');
    root.setAttribute('tabindex', '0');
    var total = slides.length;
    slides.forEach(function (slide, i) {
      slide.setAttribute('role', 'group');
      slide.setAttribute('aria-roledescription', 'slide');
      slide.setAttribute('aria-label', (i + 1) + ' of ' + total);
    });
    var controls = document.createElement('div');
    controls.className = 'mm-carousel-controls';
    function button(label, text) {
      var b = document.createElement('button');
      b.type = 'button';
      b.setAttribute('aria-label', label);
      b.textContent = text;
      controls.appendChild(b);
      return b;
    }
    var prev = button(root.getAttribute('data-mm-prev-label') || 'Previous slide', '\u2039');
    var status = document.createElement('span');
    status.className = 'mm-carousel-status';
    status.setAttribute('aria-live', 'polite');
    controls.appendChild(status);
    var next = button(root.getAttribute('data-mm-next-label') || 'Next slide', '\u203a');
    root.appendChild(controls);
    var current = 0;
    function show(index) {
      current = (index + total) % total;
      slides.forEach(function (slide, i) { slide.hidden = i !== current; });
      status.textContent = (current + 1) + ' of ' + total;
      root.setAttribute('data-mm-current', String(current + 1));
    }
    prev.addEventListener('click', function () { show(current - 1); });
    next.addEventListener('click', function () { show(current + 1); });
    root.addEventListener('keydown', function (e) {
      if (e.target.closest('input,textarea,select')) return;
      if (e.key === 'ArrowRight') { e.preventDefault(); show(current + 1); }
      else if (e.key === 'ArrowLeft') { e.preventDefault(); show(current - 1); }
    });
    show(0);
  }
  function start() {
    document.querySelectorAll('[data-mm-behaviour~="carousel"]').forEach(init);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
