/**
 * The Markdown renderer (marked + DOMPurify, about 30 kB gzipped) is loaded
 * the first time a result is shown, not with the start screen, which shows
 * no Markdown. One shared promise: every Markdown block waits for the same load.
 */
type Render = (text: string) => string

let loading: Promise<Render> | null = null

export function loadMarkdown(): Promise<Render> {
  loading ??= import('./markdown').then((m) => m.renderMarkdown)
  return loading
}
