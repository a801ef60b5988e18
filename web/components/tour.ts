// The guided tour of the visualizer: a few callouts a newcomer meets on a first visit (the views
// of the machine, the step buttons, the explain panel, the lessons), skippable at any callout
// and opened again from the header. driver.js draws them; it is loaded only when a tour opens,
// so it costs the first view nothing.

import type { TFunction } from 'i18next';

/** Where the browser remembers that the tour was seen (shown once, then only when asked for). */
export const TOUR_KEY = 'slabscope.tour.v1';

export function tourSeen(storage: Pick<Storage, 'getItem'> | null): boolean {
  try {
    return storage?.getItem(TOUR_KEY) === 'seen';
  } catch {
    return true;
  }
}

function markSeen(storage: Pick<Storage, 'setItem'> | null): void {
  try {
    storage?.setItem(TOUR_KEY, 'seen');
  } catch {
    // A browser that keeps nothing shows the tour on each first visit: no harm.
  }
}

/** The callouts, in order: what each points at and the keys of its words. */
const TOUR_STOPS = [
  { element: '.vis-stage', key: 'views' },
  { element: '[data-testid="timeline-controls"]', key: 'steps' },
  { element: '#view-explain', key: 'explain' },
  { element: '[data-testid="nav-lessons"]', key: 'lessons' },
] as const;

/** Opens the tour over what is on the page now (a callout whose element is missing is left out);
 *  it counts as seen from then on. */
export async function startTour(t: TFunction, storage: Pick<Storage, 'setItem'> | null): Promise<void> {
  const [{ driver }] = await Promise.all([import('driver.js'), import('driver.js/dist/driver.css')]);
  const steps = TOUR_STOPS.filter((s) => document.querySelector(s.element)).map((s) => ({
    element: s.element,
    popover: { title: t(`tour.${s.key}.title`), description: t(`tour.${s.key}.body`) },
  }));
  if (steps.length === 0) return;
  const tour = driver({
    steps,
    showProgress: true,
    // driver.js fills these two in itself.
    progressText: t('tour.progress', { current: '{{current}}', total: '{{total}}' }),
    nextBtnText: t('tour.next'),
    prevBtnText: t('tour.previous'),
    doneBtnText: t('tour.done'),
    popoverClass: 'slabscope-tour',
    // Its close button is the way to skip the tour: said so, in the reader's language.
    onPopoverRender: (popover) => {
      popover.closeButton.setAttribute('aria-label', t('tour.skip'));
      popover.closeButton.title = t('tour.skip');
    },
  });
  tour.drive();
  // Seen once shown: a visitor who leaves the page mid-tour is not shown it again either.
  markSeen(storage);
}
