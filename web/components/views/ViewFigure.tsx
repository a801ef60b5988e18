// The frame the structure views share: a <figure> with the drawn <svg> (aria-hidden: the text
// alternative below says the same from the same scene) and a table a screen reader can
// navigate, visually hidden until "show as table" is pressed.

import { useCallback, useLayoutEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Snapshot } from '../../core/generated/Snapshot';
import type { Motion } from '../../views/drawUtil';
import { labelText, type Label, type Target, type Translate } from '../../views/marks';
import { wordLabel, type SharedWord } from '../../views/sharedWords';
import { TextAlternative } from './TextAlternative';

export interface StructViewProps {
  snapshot: Snapshot;
  /** The shared words the step's micro-steps touched (`sharedWords(step)`): marked when they are
   *  the shown cache's. */
  words?: readonly SharedWord[];
  motion: Motion;
  onSelectSlab?: (pfn: number) => void;
  onFollowObject?: (addr: string) => void;
}

/** `t` as the views take it, stable while the language is. */
export function useTranslate(): Translate {
  const { t } = useTranslation();
  return useCallback((key: string, args?: Record<string, string | number>) => t(key, args ?? {}), [t]);
}

/** A stable activation handler that always calls the latest props. */
export function useActivate(props: Pick<StructViewProps, 'onSelectSlab' | 'onFollowObject'>): (target: Target) => void {
  const latest = useRef(props);
  useLayoutEffect(() => {
    latest.current = props;
  });
  return useCallback((target: Target) => {
    if (target.kind === 'slab') latest.current.onSelectSlab?.(target.pfn);
    else latest.current.onFollowObject?.(target.addr);
  }, []);
}

interface Props {
  /** The view's i18n namespace (`cpuView`, `nodeView`, `bulkView`): its showTable/hideTable. */
  ns: string;
  className: string;
  heading: string;
  /** Draws into the svg; called after every render in which it changed. */
  draw: (svg: SVGSVGElement) => void;
  /** Shown visibly instead of the drawing when there is nothing to draw. */
  empty?: ReactNode;
  /** While playing, the text alternative keeps its last content (see TextAlternative). */
  playing: boolean;
  /** Builds the text alternative (tables or lists). */
  children: () => ReactNode;
  testId: string;
}

export function ViewFigure({ ns, className, heading, draw, empty, playing, children, testId }: Props) {
  const { t } = useTranslation();
  const svg = useRef<SVGSVGElement>(null);

  useLayoutEffect(() => {
    if (svg.current) draw(svg.current);
  }, [draw]);

  return (
    <figure className={`struct-view ${className}`} data-testid={testId}>
      <figcaption className="struct-view-heading">{heading}</figcaption>
      {empty}
      <svg ref={svg} aria-hidden="true" focusable="false" className="struct-view-svg" />
      <TextAlternative showLabel={t(`${ns}.showTable`)} hideLabel={t(`${ns}.hideTable`)} testId={`${testId}-text`} frozen={playing}>
        {children}
      </TextAlternative>
    </figure>
  );
}

/** A slab as a button of the text alternative. */
export function SlabButton({ pfn, text, onSelect }: { pfn: number; text: string; onSelect: (t: Target) => void }) {
  return (
    <button type="button" className="slab-button" data-pfn={pfn} onClick={() => onSelect({ kind: 'slab', pfn })}>
      {text}
    </button>
  );
}

/** An object as a button of the text alternative. */
export function ObjectButton({ addr, onSelect }: { addr: string; onSelect: (t: Target) => void }) {
  return (
    <button type="button" className="object-button" data-addr={addr} onClick={() => onSelect({ kind: 'object', addr })}>
      {addr}
    </button>
  );
}

/**
 * What a micro-step of the step did to a shared word (sharedWords.ts), in the words the drawing
 * uses ("read by cpu1"), for the text alternatives; nothing when the word is untouched.
 * `reason`: a failed cmpxchg says why; `label` says it otherwise.
 */
export function WordMark({ word, reason = false, label }: { word: SharedWord | null; reason?: boolean; label?: Label }) {
  const t = useTranslate();
  if (!word) return null;
  return (
    <strong className="word-mark" data-testid="word-mark" data-word={word.word} data-how={word.how}>
      {' '}
      ({labelText(label ?? wordLabel(word, reason), t)})
    </strong>
  );
}
