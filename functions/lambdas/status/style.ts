/**
 * The page's only stylesheet, inline (one object, no request). Colours keep at least 4.5:1 against their
 * background for text and 3:1 for the bars; no state is told by colour alone: each has a word and a mark,
 * and each bar a height and a pattern besides its text. The bars flex into any width from 320 px up.
 */
export const STATUS_CSS = `
:root{color-scheme:light;--ink:#1a1a1a;--muted:#4d4d4d;--line:#d0d0d0;--bg:#fff;--panel:#f6f6f6;
--up:#17703a;--degraded:#8a4b00;--down:#b3261e;--maintenance:#1f4f9e;--no_data:#5c5c5c}
*{box-sizing:border-box}
html{font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
body{margin:0 auto;max-width:64rem;padding:1rem}
a{color:#0b4a8b}
a:focus-visible{outline:3px solid #0b4a8b;outline-offset:2px}
h1{font-size:1.6rem;margin:.5rem 0;overflow-wrap:anywhere}
h2{font-size:1.25rem;margin:2rem 0 .75rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}
h3{font-size:1.05rem;margin:0;overflow-wrap:anywhere}
p{margin:.25rem 0}
.vh{position:absolute!important;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.overall{display:inline-block;padding:.5rem .75rem;border-radius:.25rem;border:2px solid currentColor;font-weight:600;margin:.5rem 0}
.updated{color:var(--muted)}
.state{font-weight:600;white-space:nowrap}
.mark{display:inline-block;width:1.1em;text-align:center}
.s-up{color:var(--up)}.s-degraded{color:var(--degraded)}.s-down{color:var(--down)}.s-maintenance{color:var(--maintenance)}.s-no_data{color:var(--no_data)}
.targets,.events,.legend{list-style:none;margin:0;padding:0}
.target{border:1px solid var(--line);border-radius:.25rem;padding:.75rem;margin:0 0 .75rem;background:var(--panel)}
.target-head{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.25rem 1rem;align-items:baseline}
.uptime{color:var(--muted);margin:.25rem 0 .5rem}
.bars{display:flex;gap:1px;align-items:flex-end;height:2.5rem;list-style:none;margin:0;padding:0}
.bar{flex:1 1 0;min-width:0;height:100%;background:currentColor;border-radius:1px}
.bar.s-degraded{height:70%;background:repeating-linear-gradient(135deg,currentColor 0 3px,#fff 3px 5px);border:1px solid currentColor}
.bar.s-down{height:100%;box-shadow:inset 0 -.6rem 0 #000}
.bar.s-maintenance{height:55%;background:repeating-linear-gradient(0deg,currentColor 0 2px,#fff 2px 4px);border:1px solid currentColor}
.bar.s-no_data{height:20%}
.axis{display:flex;justify-content:space-between;color:var(--muted);font-size:.85rem}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:.5rem 0 0;color:var(--muted)}
.events li{padding:.5rem 0;border-bottom:1px solid var(--line);overflow-wrap:anywhere}
footer{margin-top:2rem;color:var(--muted);font-size:.9rem}
@media (min-width:48rem){body{padding:2rem}h1{font-size:2rem}.bars{height:3rem}}
`;
