// Horizontal overflow of the page at the current viewport, with the elements that cause it
// (outermost boxes whose right edge passes the viewport while their parent's does not).
// Returns {viewportW, scrollW, overflowPx, culprits: [{selector, owner, right}]}.
() => {
  const se = document.scrollingElement || document.documentElement;
  const vw = document.documentElement.clientWidth || innerWidth;
  const overflowPx = Math.max(0, se.scrollWidth - vw);
  const culprits = [];
  if (overflowPx > 1) {
    const clips = (e) => {
      for (let p = e.parentElement; p && p !== document.body && p !== document.documentElement; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o !== 'visible') return true;
      }
      return false;
    };
    for (const el of document.querySelectorAll('body *')) {
      if (culprits.length >= 5) break;
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.right + window.scrollX <= vw + 1) continue;
      const p = el.parentElement;
      const pr = p ? p.getBoundingClientRect() : null;
      if (pr && pr.right + window.scrollX > vw + 1 && p !== document.body) continue;
      if (clips(el) || getComputedStyle(el).position === 'fixed') continue;
      const o = el.closest('[data-mm-id]');
      let s = el.tagName.toLowerCase();
      if (el.id) s += '#' + el.id; else if (el.classList.length) s += '.' + [...el.classList].slice(0, 2).join('.');
      culprits.push({ selector: s, owner: o ? o.getAttribute('data-mm-id') : null, right: Math.round(r.right + window.scrollX) });
    }
  }
  return { viewportW: vw, scrollW: se.scrollWidth, overflowPx, culprits };
}
