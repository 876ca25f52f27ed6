import { Text } from '@mantine/core';
import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { formatCount } from '../../../../../domain/lists/fields.ts';

/**
 * A table of rows in a box of at most `maxHeight` that scrolls. When the box
 * holds more than it shows, a line under it says so, and a shadow lies along
 * its bottom edge while rows are hidden below: without them a row hidden past
 * the edge went unnoticed. The box is a tab stop with a name, so keyboard
 * users can scroll it too (axe scrollable-region-focusable).
 */
export function ScrollBox({ label, rowCount, maxHeight, children }: { label: string; rowCount: number; maxHeight: number; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const hintId = useId();
  const [edges, setEdges] = useState({ isCut: false, hidesBelow: false });
  const measure = useCallback(() => {
    const element = box.current;
    if (!element) return;
    const isCut = element.scrollHeight > element.clientHeight + 1;
    const hidesBelow = isCut && element.scrollTop + element.clientHeight < element.scrollHeight - 1;
    setEdges((old) => (old.isCut === isCut && old.hidesBelow === hidesBelow ? old : { isCut, hidesBelow }));
  }, []);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    measure();
    // The rows change with the server's answers, and the box with the window.
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    return () => observer.disconnect();
  }, [measure, rowCount]);
  return (
    <>
      <div style={{ position: 'relative' }}>
        <div
          ref={box}
          role="region"
          aria-label={label}
          aria-describedby={edges.isCut ? hintId : undefined}
          tabIndex={0}
          onScroll={measure}
          style={{ maxHeight, overflow: 'auto' }}
        >
          {children}
        </div>
        {edges.hidesBelow && (
          <div
            aria-hidden
            style={{
              position: 'absolute',
              left: 0,
              right: 0,
              bottom: 0,
              height: 20,
              pointerEvents: 'none',
              background: 'linear-gradient(to bottom, rgba(0, 0, 0, 0), rgba(0, 0, 0, 0.14))',
            }}
          />
        )}
      </div>
      {edges.isCut && (
        <Text size="sm" id={hintId}>
          Scroll the box to see all {formatCount(rowCount)} {rowCount === 1 ? 'row' : 'rows'}.
        </Text>
      )}
    </>
  );
}
