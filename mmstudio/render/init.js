// Runs in every frame before its scripts: stamps when the frame finished loading (ms since the
// epoch, Date.now()) so a frame whose script hung can be told apart after the hang is stopped.
window.addEventListener('load', () => { window.__mmLoadedAt = Date.now(); });
