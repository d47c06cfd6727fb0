"""JavaScript run inside the page: element marking, the accessibility snapshot, the mark overlay.

``SNAPSHOT_JS`` gives every element a ``bid`` attribute (kept across snapshots, so an id the
agent saw stays valid while the element lives) and returns an accessibility-like tree built
from a DOM walk: ARIA role or a role derived from the tag, an accessible name, value and a few
states. Text nodes become ``StaticText`` leaves. Python renders the tree (``axtree.py``).
"""

from __future__ import annotations

BID_ATTRIBUTE = "bid"

SNAPSHOT_JS = r"""
(maxNodes) => {
  const ATTR = 'bid';
  // -- 1. marking: keep existing ids, give new elements fresh ones (unique in this document)
  const elements = Array.from(document.querySelectorAll('*'));
  const taken = new Set();
  const fresh = [];
  for (const el of elements) {
    const bid = el.getAttribute(ATTR);
    if (bid === null || bid === '' || taken.has(bid)) fresh.push(el); else taken.add(bid);
  }
  let next = window.__ohNextBid || 0;
  for (const el of fresh) {
    while (taken.has(String(next))) next++;
    el.setAttribute(ATTR, String(next));
    taken.add(String(next));
    next++;
  }
  window.__ohNextBid = next;

  // -- 2. roles, names, states
  const INPUT_ROLES = {
    button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button',
    color: 'button', checkbox: 'checkbox', radio: 'radio', range: 'slider',
    number: 'spinbutton', search: 'searchbox', hidden: 'none',
  };
  const TAG_ROLES = {
    button: 'button', textarea: 'textbox', option: 'option', ul: 'list', ol: 'list',
    menu: 'list', li: 'listitem', table: 'table', tr: 'row', td: 'cell', th: 'columnheader',
    thead: 'rowgroup', tbody: 'rowgroup', tfoot: 'rowgroup', nav: 'navigation', main: 'main',
    header: 'banner', footer: 'contentinfo', aside: 'complementary', form: 'form',
    p: 'paragraph', label: 'LabelText', dialog: 'dialog', progress: 'progressbar',
    meter: 'meter', hr: 'separator', article: 'article', fieldset: 'group',
    legend: 'legend', summary: 'DisclosureTriangle', details: 'group', iframe: 'Iframe',
    blockquote: 'blockquote', code: 'code', strong: 'strong', em: 'emphasis',
    figure: 'figure', caption: 'caption', dl: 'list', dt: 'term', dd: 'definition',
    h1: 'heading', h2: 'heading', h3: 'heading', h4: 'heading', h5: 'heading', h6: 'heading',
    canvas: 'Canvas', embed: 'EmbeddedObject', object: 'EmbeddedObject',
  };
  const NAME_FROM_CONTENT = new Set([
    'button', 'link', 'heading', 'option', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'cell', 'columnheader', 'rowheader', 'switch', 'treeitem', 'tooltip',
    'DisclosureTriangle', 'legend', 'caption', 'term',
  ]);
  const INTERACTIVE = new Set([
    'link', 'button', 'checkbox', 'radio', 'combobox', 'listbox', 'option', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'tab', 'switch', 'textbox', 'searchbox',
    'spinbutton', 'slider', 'DisclosureTriangle', 'treeitem',
  ]);
  const VALUE_ROLES = new Set(['textbox', 'searchbox', 'spinbutton', 'slider', 'combobox']);
  const SKIP_TAGS = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE']);
  const clean = (text) => (text || '').replace(/\s+/g, ' ').trim();
  const textOf = (el) => clean(el.innerText !== undefined ? el.innerText : el.textContent);

  function roleOf(el) {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (explicit === 'none' || explicit === 'presentation') return 'none';
    if (explicit) return explicit;
    const tag = el.tagName.toLowerCase();
    if (tag === 'a') return el.hasAttribute('href') ? 'link' : 'generic';
    if (tag === 'input') return INPUT_ROLES[(el.getAttribute('type') || 'text').toLowerCase()] || 'textbox';
    if (tag === 'select') return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
    if (tag === 'img') return el.getAttribute('alt') === '' ? 'none' : 'img';
    if (tag === 'section') return (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')) ? 'region' : 'generic';
    return TAG_ROLES[tag] || 'generic';
  }

  function nameOf(el, role) {
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const text = labelledBy.split(/\s+/).map((id) => document.getElementById(id))
        .filter(Boolean).map(textOf).join(' ').trim();
      if (text) return text;
    }
    const aria = clean(el.getAttribute('aria-label'));
    if (aria) return aria;
    const tag = el.tagName.toLowerCase();
    if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (type === 'submit' || type === 'reset' || type === 'button') {
        return clean(el.value) || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
      }
      if (type === 'image') return clean(el.getAttribute('alt')) || 'Submit';
      const labels = el.labels ? Array.from(el.labels).map(textOf).join(' ').trim() : '';
      if (labels) return labels;
      // An unlabelled file picker is named after its button, as Chromium's own tree does, so
      // the agent can find it for upload_file.
      if (type === 'file') {
        return clean(el.getAttribute('title')) || (el.multiple ? 'Choose Files' : 'Choose File');
      }
      const placeholder = clean(el.getAttribute('placeholder'));
      if (placeholder) return placeholder;
    }
    if (tag === 'img' || tag === 'area') {
      const alt = clean(el.getAttribute('alt'));
      if (alt) return alt;
    }
    if (tag === 'fieldset') {
      const legend = el.querySelector(':scope > legend');
      if (legend) return textOf(legend);
    }
    if (tag === 'table') {
      const caption = el.querySelector(':scope > caption');
      if (caption) return textOf(caption);
    }
    if (NAME_FROM_CONTENT.has(role)) {
      const text = textOf(el);
      if (text) return text;
    }
    return clean(el.getAttribute('title'));
  }

  function valueOf(el, role) {
    if (el.tagName === 'INPUT' && (el.getAttribute('type') || '').toLowerCase() === 'file') {
      const names = Array.from(el.files || []).map((f) => f.name);
      return names.length ? names.join(', ') : 'No file chosen';
    }
    if (el.tagName === 'SELECT') {
      const chosen = Array.from(el.selectedOptions || []).map((o) => clean(o.textContent));
      return chosen.join(', ');
    }
    if (el.isContentEditable) return textOf(el);
    if (!VALUE_ROLES.has(role) || typeof el.value !== 'string') return null;
    if ((el.getAttribute('type') || '').toLowerCase() === 'password') return '•'.repeat(el.value.length);
    return el.value;
  }

  function isClickable(el, role, style) {
    if (INTERACTIVE.has(role) || el.isContentEditable) return true;
    if (el.onclick || el.hasAttribute('onclick')) return true;
    if (style.cursor === 'pointer') {
      const parent = el.parentElement;
      return !parent || getComputedStyle(parent).cursor !== 'pointer';
    }
    return false;
  }

  function box(el) {
    const rect = el.getBoundingClientRect();
    if (rect.width <= 0 || rect.height <= 0) return null;
    return [rect.x, rect.y, rect.width, rect.height];
  }

  function inViewport(bbox) {
    if (!bbox) return 0;
    const [x, y, w, h] = bbox;
    const vw = window.innerWidth, vh = window.innerHeight;
    const visibleW = Math.max(0, Math.min(x + w, vw) - Math.max(x, 0));
    const visibleH = Math.max(0, Math.min(y + h, vh) - Math.max(y, 0));
    return Math.round((visibleW * visibleH) / (w * h) * 100) / 100;
  }

  // -- 3. the walk
  const active = document.activeElement;
  const focusedBid = active && active !== document.body && active !== document.documentElement
    ? (active.getAttribute(ATTR) || '') : '';
  const extra = {};
  let budget = maxNodes;
  const MAX_DEPTH = 200;

  // Python renders the tree recursively: a depth cap keeps absurdly nested pages harmless.
  function walk(el, depth) {
    if (budget <= 0 || depth > MAX_DEPTH || SKIP_TAGS.has(el.tagName)) return [];
    const style = getComputedStyle(el);
    if (style.display === 'none' || el.hidden || el.getAttribute('aria-hidden') === 'true') return [];
    const shown = style.visibility !== 'hidden' && style.visibility !== 'collapse';
    budget--;
    const role = roleOf(el);
    const children = [];
    if (el.tagName !== 'IFRAME' && el.tagName !== 'SELECT' && role !== 'textbox') {
      for (const child of el.childNodes) {
        if (child.nodeType === Node.TEXT_NODE) {
          const text = clean(child.textContent);
          if (text && shown) children.push({ role: 'StaticText', name: text });
        } else if (child.nodeType === Node.ELEMENT_NODE) {
          children.push(...walk(child, depth + 1));
        }
      }
    } else if (el.tagName === 'SELECT') {
      for (const option of el.options) {
        children.push({
          role: 'option', name: clean(option.textContent), bid: option.getAttribute(ATTR),
          props: option.selected ? { selected: true } : {}, children: [],
        });
      }
    }
    const bid = el.getAttribute(ATTR);
    const bbox = box(el);
    const clickable = shown && isClickable(el, role, style);
    const visibility = shown ? inViewport(bbox) : 0;
    extra[bid] = { visibility, bbox, clickable, set_of_marks: clickable && visibility > 0 };
    if (!shown) return children;
    const props = {};
    if (el === active && el !== document.body) props.focused = true;
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') props.disabled = true;
    if (el.required || el.getAttribute('aria-required') === 'true') props.required = true;
    if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox') {
      const aria = el.getAttribute('aria-checked');
      props.checked = aria !== null ? aria : String(!!el.checked);
    }
    if (role === 'option' && (el.selected || el.getAttribute('aria-selected') === 'true')) props.selected = true;
    const expanded = el.getAttribute('aria-expanded');
    if (expanded !== null) props.expanded = expanded === 'true';
    else if (el.tagName === 'SUMMARY' && el.parentElement && el.parentElement.tagName === 'DETAILS') props.expanded = el.parentElement.open;
    const popup = el.getAttribute('aria-haspopup');
    if (popup && popup !== 'false') props.hasPopup = popup === 'true' ? 'menu' : popup;
    if (role === 'heading') props.level = Number(el.getAttribute('aria-level') || el.tagName.slice(1)) || 2;
    if (role === 'link' && el.href) props.url = el.href;
    const named = role === 'generic' || role === 'none' ? clean(el.getAttribute('title')) || clean(el.getAttribute('aria-label')) : nameOf(el, role);
    const value = valueOf(el, role);
    // Anonymous layout containers add nothing for the agent: their children move up a level.
    if ((role === 'generic' || role === 'none') && !clickable && !named && !props.focused) return children;
    const node = { role, name: named, bid, props, children, clickable };
    if (value !== null && value !== undefined) node.value = value;
    return [node];
  }

  const body = document.body || document.documentElement;
  const children = body ? walk(body, 0) : [];
  const rootProps = focusedBid ? {} : { focused: true };
  return {
    tree: { role: 'RootWebArea', name: document.title || '', props: rootProps, children },
    focused_bid: focusedBid,
    extra_properties: extra,
    truncated: budget <= 0,
    element_count: elements.length,
  };
}
"""

# Draw a labelled box over each marked element (viewport coordinates), for one screenshot.
SHOW_MARKS_JS = r"""
(marks) => {
  const layer = document.createElement('div');
  layer.id = '__oh_set_of_marks';
  layer.setAttribute('style', 'position:fixed;left:0;top:0;width:100%;height:100%;' +
    'pointer-events:none;z-index:2147483647;');
  for (const [bid, x, y, w, h] of marks) {
    const frame = document.createElement('div');
    frame.setAttribute('style', `position:absolute;left:${x}px;top:${y}px;width:${w}px;` +
      `height:${h}px;border:2px solid #e5007a;box-sizing:border-box;`);
    const label = document.createElement('div');
    label.textContent = bid;
    label.setAttribute('style', 'position:absolute;left:-2px;top:-16px;background:#e5007a;' +
      'color:#fff;font:bold 11px/14px monospace;padding:0 2px;white-space:nowrap;');
    frame.appendChild(label);
    layer.appendChild(frame);
  }
  (document.body || document.documentElement).appendChild(layer);
}
"""

HIDE_MARKS_JS = r"""
() => { const layer = document.getElementById('__oh_set_of_marks'); if (layer) layer.remove(); }
"""
