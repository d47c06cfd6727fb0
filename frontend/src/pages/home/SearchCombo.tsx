import { useState, type KeyboardEvent, type ReactNode } from "react";

export interface ComboOption {
  key: string;
  label: string;
  /** Shown muted on the right (e.g. "recent", "default"). */
  detail?: string | undefined;
}

interface Props {
  id: string;
  label: string;
  placeholder: string;
  text: string;
  onText(text: string): void;
  options: ComboOption[];
  selected: string | null;
  onPick(key: string): void;
  /** Shown under the list: a status line or a "Load more" button. */
  footer?: ReactNode;
  testId: string;
}

/**
 * A text box that filters a list below it (ARIA combobox with a listbox):
 * arrows move, Enter picks, Escape closes. Searching itself is the caller's.
 */
export function SearchCombo({ id, label, placeholder, text, onText, options, selected, onPick, footer, testId }: Props) {
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const listId = `${id}-list`;
  const activeOption = open ? options[Math.min(active, options.length - 1)] : undefined;
  const optionId = (key: string) => `${id}-opt-${key.replace(/[^A-Za-z0-9_-]/g, "_")}`;

  function pick(key: string) {
    onPick(key);
    setOpen(false);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "ArrowDown") {
      event.preventDefault();
      setOpen(true);
      setActive((a) => Math.min(a + 1, options.length - 1));
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setActive((a) => Math.max(a - 1, 0));
    } else if (event.key === "Enter" && open && activeOption) {
      // Enter picks instead of submitting the surrounding form.
      event.preventDefault();
      pick(activeOption.key);
    } else if (event.key === "Escape") {
      setOpen(false);
    }
  }

  return (
    <div
      className="combo"
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOpen(false);
      }}
    >
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        data-testid={testId}
        role="combobox"
        aria-expanded={open}
        aria-controls={open && options.length > 0 ? listId : undefined}
        aria-autocomplete="list"
        aria-activedescendant={activeOption ? optionId(activeOption.key) : undefined}
        autoComplete="off"
        spellCheck={false}
        placeholder={placeholder}
        value={text}
        onFocus={() => setOpen(true)}
        onChange={(e) => {
          onText(e.target.value);
          setOpen(true);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
      />
      {open && options.length > 0 && (
        <ul id={listId} role="listbox" aria-label={label} className="combo__list" data-testid={`${testId}-options`}>
          {options.map((o, i) => (
            <li
              key={o.key}
              id={optionId(o.key)}
              role="option"
              aria-selected={o.key === selected}
              className={o === activeOption ? "combo__option combo__option--active" : "combo__option"}
              data-testid={`${testId}-option`}
              data-value={o.key}
              onMouseDown={(e) => e.preventDefault()}
              onMouseEnter={() => setActive(i)}
              onClick={() => pick(o.key)}
            >
              <span>{o.label}</span>
              {o.detail && <span className="muted">{o.detail}</span>}
            </li>
          ))}
        </ul>
      )}
      {open && footer}
    </div>
  );
}
