/** The demo page's stylesheet, served as /demo/demo.css: mobile first, system fonts, no assets. */
export const DEMO_STYLES = String.raw`:root { color-scheme: light dark; --muted: #6b7280; --line: #d1d5db; --accent: #2563eb; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 48rem; padding: 1rem; font: 1rem/1.5 system-ui, sans-serif; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1rem; margin: 1rem 0 .25rem; }
header p, .hint, .source, small { color: var(--muted); }
.hint { font-size: .875rem; margin: .15rem 0 0; }
form { display: grid; gap: .75rem; }
label { display: grid; gap: .2rem; font-weight: 600; }
.with-button { display: flex; gap: .5rem; }
.with-button input { flex: 1; min-width: 0; }
input, button { font: inherit; font-weight: 400; padding: .55rem .7rem; border: 1px solid var(--line); border-radius: .4rem; }
button { cursor: pointer; background: transparent; color: inherit; }
button[type=submit] { background: var(--accent); border-color: var(--accent); color: #fff; font-weight: 600; }
button:disabled { opacity: .6; cursor: progress; }
#errors { list-style: none; padding: 0; margin: 1rem 0 0; }
#errors li { border-left: .3rem solid #dc2626; padding: .4rem .75rem; margin-bottom: .5rem; background: rgba(220, 38, 38, .08); }
#errors p { margin: 0; font-weight: 600; }
.badge { display: inline-block; padding: .1rem .55rem; border-radius: 1rem; font-weight: 700; font-size: .875rem; background: #e5e7eb; color: #111827; }
.badge[data-status=PENDING] { background: #fef3c7; color: #92400e; }
.badge[data-status=SUCCESSFUL] { background: #dcfce7; color: #166534; }
.badge[data-status=FAILED], .badge[data-status=CANCELLED] { background: #fee2e2; color: #991b1b; }
.badge[data-status=UNKNOWN] { background: #e0e7ff; color: #3730a3; }
.badge[data-status=AWAITING_APPROVAL] { background: #f3e8ff; color: #6b21a8; }
.badge[data-status=SCHEDULED] { background: #e0f2fe; color: #075985; }
.badge[data-status=EXPIRED] { background: #fee2e2; color: #991b1b; }
.badge[data-status=RUNNING] { background: #fef3c7; color: #92400e; }
.badge[data-status=DONE] { background: #dcfce7; color: #166534; }
#timeline li[data-status=AWAITING_APPROVAL]::before { background: #9333ea; }
.actor { font-weight: 600; }
.actions { display: flex; gap: .35rem; }
.actions button { padding: .25rem .6rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; margin: .5rem 0; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
#timeline { list-style: none; padding: 0 0 0 1rem; margin: 0; border-left: 2px solid var(--line); }
#timeline li { position: relative; padding: .25rem 0; }
#timeline li::before { content: ''; position: absolute; left: -1.4rem; top: .75rem; width: .65rem; height: .65rem; border-radius: 50%; background: var(--line); }
#timeline li[data-status=SUCCESSFUL]::before { background: #16a34a; }
#timeline li[data-status=FAILED]::before, #timeline li[data-status=CANCELLED]::before { background: #dc2626; }
#timeline li[data-status=PENDING]::before { background: #d97706; }
#timeline time { font-variant-numeric: tabular-nums; color: var(--muted); margin-right: .25rem; }
#timeline p { margin: 0; }
#live { font-size: .875rem; color: var(--muted); }
.trails { display: grid; gap: 0 1.5rem; }
@media (min-width: 40rem) { .trails { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
#audit { list-style: none; padding: 0; margin: 0; }
#audit li { padding: .25rem 0; border-bottom: 1px solid var(--line); }
#audit p { margin: 0; overflow-wrap: anywhere; }
#audit time { font-variant-numeric: tabular-nums; color: var(--muted); }
#audit .badge { font-size: .75rem; font-weight: 600; }
.chain { font-size: .8rem; color: var(--muted); }
[data-link=ok] { color: #16a34a; }
[data-link=broken] { color: #dc2626; font-weight: 700; }
.endings { list-style: none; padding: 0; display: grid; gap: .35rem; }
.endings li { display: grid; grid-template-columns: 5.5rem 1fr; gap: .6rem; align-items: center; }
.endings button { font-family: ui-monospace, monospace; padding: .3rem .6rem; }
select { font: inherit; padding: .45rem .6rem; border: 1px solid var(--line); border-radius: .4rem; background: transparent; color: inherit; }
.toolbar { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin-bottom: .5rem; }
.toolbar label { grid-auto-flow: column; align-items: center; gap: .4rem; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: .875rem; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
td:first-child { overflow-wrap: anywhere; }
th.amount, td.amount { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.progress { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.figures { width: auto; min-width: 18rem; }
.figures th { color: inherit; font-weight: 400; }
.figures tr[data-line=unexplained] { font-weight: 700; }
#balance-amount { font-size: 1.5rem; font-variant-numeric: tabular-nums; }
code { font-family: ui-monospace, monospace; font-size: .9em; }
`;
