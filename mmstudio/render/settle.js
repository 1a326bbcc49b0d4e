// Bring a page to its resting state before it is probed (one page.evaluate, async).
// Lazy images and frames load eagerly, the page is scrolled once top to bottom so scroll-driven
// reveals fire, finite CSS animations/transitions are jumped to their end state (so a fade that ends
// at opacity 0 is seen at 0, not mid-fade), and images/videos get up to maxMs to load.
// Returns {pending, scrolled, ms}.
async ({ maxMs, maxScrollPx }) => {
  const t0 = performance.now();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const docs = () => {
    const out = [document];
    for (const f of document.querySelectorAll('iframe')) {
      try { if (f.contentDocument) out.push(f.contentDocument); } catch (e) { /* cross-origin */ }
    }
    return out;
  };
  for (const d of docs()) {
    d.querySelectorAll('img[loading="lazy"], iframe[loading="lazy"]').forEach((el) => {
      el.loading = 'eager';
    });
  }
  const se = document.scrollingElement || document.documentElement;
  let scrolled = 0;
  const step = Math.max(200, innerHeight);
  for (let y = step; y < se.scrollHeight && y <= maxScrollPx; y += step) {
    window.scrollTo({ top: y, left: 0, behavior: 'instant' });
    scrolled = y;
    await frame();
  }
  await frame();
  window.scrollTo({ top: 0, left: 0, behavior: 'instant' });
  const pending = () => {
    let n = 0;
    for (const d of docs()) {
      n += [...d.images].filter((i) => !i.complete).length;
      n += [...d.querySelectorAll('video')].filter(
        (v) => v.readyState < 2 && !v.error && v.networkState !== 3 && v.preload !== 'none'
      ).length;
    }
    return n;
  };
  while (pending() && performance.now() - t0 < maxMs) await sleep(40);
  for (const d of docs()) {
    for (const a of d.getAnimations ? d.getAnimations() : []) {
      try {
        const t = a.effect && a.effect.getComputedTiming();
        if (t && Number.isFinite(t.endTime)) a.finish();
      } catch (e) { /* an animation that cannot finish keeps running */ }
    }
  }
  await frame();
  await frame();
  return { pending: pending(), scrolled, ms: performance.now() - t0 };
}
