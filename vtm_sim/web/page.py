"""The table's HTML, drawn on the server from :meth:`TableService.show`'s JSON.

No rule here: the page shows what the service returns, and its few lines of plain
JavaScript send the buttons' requests to the JSON API (``/api/tables/...``), then
redraw the page from the server. Nothing is fetched from elsewhere (no CDN).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any
from urllib.parse import quote

CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;margin:0;padding:.6rem;background:#15110f;color:#eee;
 max-width:70rem;margin:auto;font-size:16px}
a{color:#f6a}h1{font-size:1.3rem;margin:.3rem 0}h2{font-size:1.05rem;margin:.8rem 0 .3rem}
.grid{display:grid;grid-template-columns:1fr;gap:.6rem}
@media(min-width:800px){.grid{grid-template-columns:1fr 1fr}}
section{background:#221a18;border-radius:.5rem;padding:.6rem}
.c{border-left:4px solid #888;padding:.3rem .5rem;margin:.3rem 0;background:#2b2220}
.s0{border-color:#4ab}.s1{border-color:#d45}.s2{border-color:#db4}.s3{border-color:#8c5}
.track{font-family:monospace;letter-spacing:.1em}
.cond{display:inline-block;background:#633;border-radius:.3rem;padding:0 .3rem;margin:.1rem;
 font-size:.85rem}
button{font-size:1rem;margin:.2rem 0;padding:.55rem .6rem;width:100%;text-align:left;
 background:#3a2c29;color:#eee;border:1px solid #755;border-radius:.4rem;cursor:pointer}
button:hover{background:#4a3835}button.act{background:#702;border-color:#c36}
input,select{font-size:1rem;padding:.45rem;width:100%;background:#111;color:#eee;
 border:1px solid #666;border-radius:.3rem}
label{display:block;margin:.3rem 0}
#msg{min-height:1.2rem;color:#fc6;white-space:pre-wrap}
.narr{font-family:monospace;font-size:.85rem;max-height:22rem;overflow:auto;white-space:pre-wrap}
svg{width:100%;height:auto;background:#1b1513;border-radius:.4rem}
table{border-collapse:collapse;width:100%}td,th{padding:.2rem .3rem;text-align:left}
.row{display:flex;gap:.4rem}.row>*{flex:1}
"""

SCRIPT = """
const T = document.body.dataset.table;
const V = () => parseInt(document.body.dataset.version);
function say(t){ document.getElementById('msg').textContent = t || ''; }
async function redraw(note){
  const r = await fetch('/tables/' + encodeURIComponent(T));
  const html = await r.text();
  const doc = new DOMParser().parseFromString(html, 'text/html');
  document.getElementById('main').replaceWith(doc.getElementById('main'));
  document.body.dataset.version = doc.body.dataset.version;
  say(note);
  if (note) document.getElementById('msg').scrollIntoView({block: 'nearest'});
  bottom();
}
function bottom(){
  const n = document.getElementById('narration');
  if (n) n.scrollTop = n.scrollHeight;
}
bottom();
async function post(path, body){
  const r = await fetch('/api/tables/' + encodeURIComponent(T) + path, {method:'POST',
    headers:{'Content-Type':'application/json'}, body: JSON.stringify(body)});
  let data = {};
  try { data = await r.json(); } catch(e) {}
  return [r.status, data];
}
async function act(path, body){
  const [status, data] = await post(path, body);
  if (status >= 400) {
    await redraw(data.error || ('error ' + status));
    return null;
  }
  await redraw('');
  return data;
}
async function choose(option){
  const f = document.getElementById('faces');
  const body = {option: option, version: V()};
  if (f && f.value.trim()) body.faces = f.value.trim();
  const data = await act('/choose', body);
  if (data && data.step) say(data.step.narration.join('\\n'));
}
async function undo(){ await act('/undo', {version: V()}); }
async function auto(){
  const data = await act('/auto', {version: V()});
  if (data) say('(' + data.stopped + ')');
}
async function suggest(){
  const box = document.getElementById('suggestion');
  box.innerHTML = '<em>thinking…</em>';
  for (const seconds of [0.3, 2]) {
    const [status, data] = await post('/suggest', {seconds: seconds});
    if (status >= 400) { box.textContent = data.error || ('error ' + status); return; }
    if (data.version !== V()) { box.textContent = 'the table moved on: ask again'; return; }
    box.innerHTML = '';
    const p = document.createElement('p');
    p.textContent = data.actor + ', to ' + data.goal_words + ': ' + data.reason
      + (seconds < 1 ? ' (refining…)' : '');
    box.appendChild(p);
    const b = document.createElement('button');
    b.className = 'act'; b.id = 'accept';
    b.textContent = 'Accept: ' + data.label;
    b.onclick = () => choose(data.index);
    box.appendChild(b);
  }
}
"""


def _head(title: str) -> str:
    return ("<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width,initial-scale=1'>"
            f"<title>{escape(title)}</title><style>{CSS}</style></head>")


def index(tables: Sequence[dict[str, Any]], scenarios: Sequence[str]) -> str:
    """The front page: every encounter, and a form to start one."""
    rows = []
    for t in tables:
        p = t["pending"]
        who = "over" if p is None else f"{p['actor']} to {p['decision']}"
        rows.append(f"<tr><td><a href='/tables/{quote(t['name'], safe='')}'>"
                    f"{escape(t['name'])}</a></td><td>{escape(str(t['scenario']))}</td>"
                    f"<td>turn {t['turn']}</td><td>{escape(who)}</td></tr>")
    listing = ("<table>" + "".join(rows) + "</table>") if rows else "<p>No encounter yet.</p>"
    opts = "".join(f"<option value='{escape(s)}'>{escape(s)}</option>" for s in scenarios)
    form = (
        "<form method='post' action='/new' enctype='multipart/form-data'>"
        "<label>Name <input name='name' required maxlength='80'></label>"
        f"<label>Scenario <select name='scenario'><option value=''>(an upload)</option>"
        f"{opts}</select></label>"
        "<label>or a state file or stat block (YAML or JSON) <input type='file' name='upload'>"
        "</label>"
        "<label>Foes of an uploaded stat block (shipped sheets, commas) "
        "<input name='foe' placeholder='thug, ghoul_enforcer'></label>"
        "<label>PCs (names, commas) <input name='pcs'></label>"
        "<label>Dice entered <select name='dice'><option>tool</option><option>pcs</option>"
        "<option>all</option></select></label>"
        "<button class='act' type='submit'>Start the encounter</button></form>")
    return (_head("vtm-sim: the table") + "<body><h1>The table</h1>"
            f"<section><h2>Encounters</h2>{listing}</section>"
            f"<section><h2>A new encounter</h2>{form}</section></body></html>")


def error(status: int, line: str) -> str:
    """A refused page request (an unknown encounter, a form that does not fit)."""
    return (_head(f"{status}: vtm-sim table") + f"<body><h1>{status}</h1>"
            f"<p id='msg' role='alert'>{escape(line)}</p>"
            "<p><a href='/'>← the encounters</a></p></body></html>")


def _map(combatants: Sequence[dict[str, Any]], actor: int | None) -> str:
    """Positions in yards, seen from above (x right, y down); names alternate above and
    below their dots so that neighbours stay readable."""
    xs = [c["at"][0] for c in combatants]
    ys = [c["at"][1] for c in combatants]
    w = max(max(xs) - min(xs) + 4.0, 16.0)
    h = max(max(ys) - min(ys) + 5.0, 6.0)
    x0 = (min(xs) + max(xs)) / 2 - w / 2
    y0 = (min(ys) + max(ys)) / 2 - h / 2
    colours = ("#4ab", "#d45", "#db4", "#8c5")
    dots = []
    for i, c in enumerate(combatants):
        x, y = c["at"][0] - x0, c["at"][1] - y0
        fill = colours[c["side"] % len(colours)] if c["status"] == "active" else "#555"
        ring = " stroke='#fff' stroke-width='0.15'" if c["id"] == actor else ""
        ty = y - 0.8 if i % 2 == 0 else y + 1.3
        dots.append(f"<g><circle cx='{x:.2f}' cy='{y:.2f}' r='0.45' fill='{fill}'"
                    f"{ring}><title>{escape(c['name'])} at {c['at'][0]:g},{c['at'][1]:g}"
                    f"</title></circle><text x='{x:.2f}' y='{ty:.2f}' font-size='0.75' "
                    f"fill='#ddd' text-anchor='middle'>{escape(c['name'])}</text></g>")
    return (f"<svg id='map' viewBox='0 0 {w:.2f} {h:.2f}' role='img' "
            f"aria-label='positions, in yards'>{''.join(dots)}</svg>")


def _combatant(c: dict[str, Any]) -> str:
    bits = [f"{escape(c['health'])} <span class='track'>{escape(c['track'])}</span>"]
    if c.get("blood") is not None:
        bits.append(f"blood {c['blood']}/{c['blood_pool']}")
    bits.append(f"Willpower {c['willpower']}/{c['willpower_max']}")
    for w in c["weapons"]:
        text = w["name"] + (" (in hand)" if w["in_hand"] else "")
        if w["rounds"] is not None:
            text += f" {w['rounds']}/{w['magazine']}"
        if w["jammed"]:
            text += " jammed"
        if w["lost"]:
            text += " lost"
        bits.append(escape(text))
    conds = "".join(f"<span class='cond'>{escape(str(k))}</span>" for k in c["conditions"])
    return (f"<div class='c s{c['side'] % 4}' data-combatant='{escape(c['name'])}'>"
            f"<b>{escape(c['name'])}</b> <small>[{c['player']}, {escape(c['status'])}]</small>"
            f"<br>{' · '.join(bits)}<br>{conds}</div>")


def encounter(shown: dict[str, Any], steps: Sequence[dict[str, Any]]) -> str:
    """One encounter's page."""
    name = shown["name"]
    p = shown["pending"]
    if p is None:
        result = shown.get("result") or {}
        decide = (f"<p id='pending'>The fight is over: {escape(str(result.get('reason')))}"
                  "</p>")
    else:
        buttons = "".join(
            f"<button class='opt' data-index='{o['index']}' onclick='choose({o['index']})'>"
            f"{o['index']}. {escape(o['label'])}</button>" for o in p["choices"])
        against = f" against {escape(p['attacker'])}" if p.get("attacker") else ""
        decide = (
            f"<p id='pending'><b>{escape(p['actor'])}</b> ({p['player']}) to "
            f"{escape(p['decision'])}{against}</p>"
            "<label>Dice entered (faces, e.g. <code>9 7 3</code>; rolls split by /) "
            "<input id='faces' inputmode='numeric' autocomplete='off'></label>"
            f"<div id='options'>{buttons}</div>"
            "<div class='row'><button id='suggest' onclick='suggest()'>Suggest</button>"
            "<button id='auto' onclick='auto()'>NPCs play on</button></div>"
            "<div id='suggestion'></div>")
    actor = p["actor_id"] if p else None
    order = "".join(f"<li>{escape(n)}</li>" for n in shown["initiative"])
    narration = escape("\n".join(shown["narration"]))
    last = escape(steps[-1]["label"]) if steps else "nothing yet"
    main = (
        f"<main id='main'><h1>{escape(name)} <small>turn {shown['turn']}, version "
        f"<span id='version'>{shown['version']}</span></small></h1>"
        "<div class='grid'>"
        f"<section><h2>Whose decision</h2>{decide}"
        f"<button id='undo' onclick='undo()'>Undo the last step ({last})</button></section>"
        f"<section><h2>The fight</h2>{_map(shown['combatants'], actor)}"
        f"<h2>Initiative</h2><ol id='initiative'>{order}</ol>"
        f"<div id='combatants'>{''.join(_combatant(c) for c in shown['combatants'])}</div>"
        "</section>"
        f"<section><h2>Narration</h2><div class='narr' id='narration'>{narration}</div>"
        "</section></div></main>")
    return (_head(f"{name}: vtm-sim table") +
            f"<body data-table='{escape(name)}' data-version='{shown['version']}'>"
            "<p><a href='/'>← the encounters</a></p><div id='msg' role='status'></div>"
            f"{main}<script>{SCRIPT}</script></body></html>")
