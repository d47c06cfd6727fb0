/**
 * The bar between the chat and the workspace: drag it (pointer) or focus it and
 * use the arrow keys to resize the workspace, Home/End for the extremes, Enter to
 * hide it. A WAI-ARIA window splitter, so screen readers announce the size.
 */
import { useTranslation } from "../../../i18n/useTranslation";
import { useRef, type KeyboardEvent, type PointerEvent } from "react";
import { clampWidth, DEFAULT_WIDTH, MAX_WIDTH, MIN_WIDTH } from "./panelPrefs";

const STEP = 0.05;

interface Props {
  /** The panel's share of the container's width. */
  width: number;
  onResize(width: number): void;
  /** Called once a drag ends, with the final width. */
  onResizeEnd(width: number): void;
  onCollapse(): void;
}

function isRtl(): boolean {
  return document.documentElement.dir === "rtl";
}

export function ResizeHandle({ width, onResize, onResizeEnd, onCollapse }: Props) {
  const { t } = useTranslation("conversation");
  const dragging = useRef(false);
  const last = useRef(width);

  function widthAt(event: PointerEvent<HTMLDivElement>): number {
    // The container is the grid the handle sits in; the panel is at its inline end
    // (the right, or the left in a right-to-left language).
    const box = event.currentTarget.parentElement?.getBoundingClientRect();
    if (!box || box.width === 0) return width;
    const fromEnd = isRtl() ? event.clientX - box.left : box.right - event.clientX;
    return clampWidth(fromEnd / box.width);
  }

  function onPointerDown(event: PointerEvent<HTMLDivElement>) {
    if (event.button !== 0) return;
    event.preventDefault();
    dragging.current = true;
    last.current = width;
    event.currentTarget.setPointerCapture(event.pointerId);
  }

  function onPointerMove(event: PointerEvent<HTMLDivElement>) {
    if (!dragging.current) return;
    last.current = widthAt(event);
    onResize(last.current);
  }

  function onPointerUp(event: PointerEvent<HTMLDivElement>) {
    if (!dragging.current) return;
    dragging.current = false;
    event.currentTarget.releasePointerCapture(event.pointerId);
    onResizeEnd(last.current);
  }

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    let next: number | null = null;
    // The handle moves with the arrow: towards the chat makes the panel wider.
    const wider = isRtl() ? "ArrowRight" : "ArrowLeft";
    const narrower = wider === "ArrowLeft" ? "ArrowRight" : "ArrowLeft";
    if (event.key === wider) next = width + STEP;
    else if (event.key === narrower) next = width - STEP;
    else if (event.key === "Home") next = MAX_WIDTH;
    else if (event.key === "End") next = MIN_WIDTH;
    else if (event.key === "Enter") {
      event.preventDefault();
      onCollapse();
      return;
    }
    if (next === null) return;
    event.preventDefault();
    onResizeEnd(clampWidth(next));
  }

  return (
    <div
      className="workspace-resizer"
      role="separator"
      tabIndex={0}
      aria-orientation="vertical"
      aria-label={t("workspace.resize")}
      aria-controls="workspace-sheet"
      aria-valuemin={Math.round(MIN_WIDTH * 100)}
      aria-valuemax={Math.round(MAX_WIDTH * 100)}
      aria-valuenow={Math.round(width * 100)}
      aria-valuetext={`Workspace ${Math.round(width * 100)}% wide`}
      data-testid="workspace-resizer"
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
      onDoubleClick={() => onResizeEnd(DEFAULT_WIDTH)}
      onKeyDown={onKeyDown}
    />
  );
}
