/**
 * Markdown from peers, rendered safely. Results and plans are untrusted text
 * written by other people's LLMs: marked turns them into HTML, then DOMPurify
 * keeps only inert formatting. No scripts, styles, forms or frames; images
 * are never loaded (a remote image would tell its host who is watching) but
 * shown as a link; links open in a new tab without referrer or opener.
 */
import createDOMPurify from 'dompurify'
import { Marked } from 'marked'

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // a Markdown image becomes a link to it: never fetched unless the reader asks
    image({ href, text }) {
      return `<a href="${escapeHtml(href)}">[image: ${escapeHtml(text || 'image')}]</a>`
    },
  },
})

let purifier: ReturnType<typeof createDOMPurify> | null = null

/** Links may only go to the web or to e-mail: no javascript:, data: or file: URLs. */
const SAFE_HREF = /^(https?:|mailto:)/i

function createPurifier(): ReturnType<typeof createDOMPurify> {
  // an instance of our own, so this hook never affects another DOMPurify user
  const p = createDOMPurify(window)
  p.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName !== 'A') return
    const href = node.getAttribute('href') ?? ''
    if (!SAFE_HREF.test(href)) node.removeAttribute('href')
    node.setAttribute('target', '_blank')
    node.setAttribute('rel', 'noopener noreferrer nofollow')
  })
  return p
}

const FORBID_TAGS = [
  'img',
  'style',
  'script',
  'iframe',
  'object',
  'embed',
  'form',
  'input',
  'button',
  'textarea',
  'select',
  'option',
  'svg',
  'math',
  'video',
  'audio',
  'source',
  'picture',
  'link',
  'meta',
  'base',
]

/** Untrusted Markdown → sanitised HTML, safe for {@html}. */
export function renderMarkdown(text: string): string {
  purifier ??= createPurifier()
  const html = marked.parse(text) as string
  return purifier.sanitize(html, {
    FORBID_TAGS,
    FORBID_ATTR: ['style', 'srcset', 'class', 'id', 'formaction'],
    ALLOW_DATA_ATTR: false,
  })
}
