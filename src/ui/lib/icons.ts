/**
 * The app's icons, drawn as inline SVG paths on a 16×16 grid (Icon.svelte),
 * so they look the same everywhere: a symbol character would depend on the
 * fonts of the machine, and many (✂ ⚙ ⚖ ✔ ⚠ ⏸ 🗄) turn into colour emoji,
 * or an empty box where no emoji font is installed.
 *
 * Each icon is one or more strokes (paths drawn with the text colour); a
 * dotted icon is drawn dashed. Icons are decoration: the words beside them
 * carry the meaning.
 */
export const ICONS = {
  archive: ['M2 3h12v3.2H2z', 'M3 6.2V13h10V6.2', 'M6.3 9h3.4'],
  check: ['M3 8.6l3.2 3.1L13 4.6'],
  cross: ['M4 4l8 8', 'M12 4l-8 8'],
  warning: ['M8 1.8L14.8 13.8H1.2z', 'M8 6v3.6', 'M8 11.8v.1'],
  scissors: [
    'M6 4.5a2 2 0 1 1-4 0a2 2 0 1 1 4 0',
    'M6 11.5a2 2 0 1 1-4 0a2 2 0 1 1 4 0',
    'M5.6 5.7L14 12.2',
    'M5.6 10.3L14 3.8',
  ],
  scale: ['M8 2v12', 'M4.5 14h7', 'M2.5 4h11', 'M2.5 4L1 9h3z', 'M13.5 4L12 9h3z'],
  gear: [
    'M11 8a3 3 0 1 1-6 0a3 3 0 1 1 6 0',
    'M8 1.5v2',
    'M8 12.5v2',
    'M1.5 8h2',
    'M12.5 8h2',
    'M3.4 3.4l1.4 1.4',
    'M11.2 11.2l1.4 1.4',
    'M3.4 12.6l1.4-1.4',
    'M11.2 4.8l1.4-1.4',
  ],
  eye: [
    'M1.3 8S3.8 3.5 8 3.5 14.7 8 14.7 8 12.2 12.5 8 12.5 1.3 8 1.3 8z',
    'M9.8 8a1.8 1.8 0 1 1-3.6 0a1.8 1.8 0 1 1 3.6 0',
  ],
  pause: ['M5.5 3.5v9', 'M10.5 3.5v9'],
  play: ['M5 3.2l8 4.8-8 4.8z'],
  pending: ['M13.5 8a5.5 5.5 0 1 1-11 0a5.5 5.5 0 1 1 11 0'],
  open: ['M8 2l6 6-6 6-6-6z'],
  rollup: ['M13 8a5 5 0 1 1-1.5-3.6', 'M11.8 1.8v2.8H9'],
  cancelled: ['M13.5 8a5.5 5.5 0 1 1-11 0a5.5 5.5 0 1 1 11 0', 'M4.1 11.9l7.8-7.8'],
  pen: ['M11 2.2l2.8 2.8L5.6 13.2H2.8v-2.8z', 'M9.4 3.8l2.8 2.8'],
  dot: ['M8.6 8a.6.6 0 1 1-1.2 0a.6.6 0 1 1 1.2 0'],
} as const satisfies Record<string, readonly string[]>

export type IconName = keyof typeof ICONS

/** Icons drawn dashed: a dotted circle says "not decided yet". */
export const DASHED: ReadonlySet<IconName> = new Set(['pending'])
