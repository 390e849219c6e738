/**
 * DEV ONLY: the UI lab, a page outside the app that renders the plan view
 * with synthetic data, for measuring it (1,000 nodes and more) and for
 * checking how untrusted Markdown renders. `npm run dev`, then open
 * /src/ui/dev/lab.html?nodes=1000. The e2e perf test builds and loads it.
 */
import { flushSync, mount } from 'svelte'
import Lab from './Lab.svelte'
import '../styles.css'

const target = document.getElementById('lab')
if (!target) throw new Error('lab.html has no #lab element')
const nodes = Number(new URLSearchParams(window.location.search).get('nodes') ?? 1000)
const started = performance.now()
mount(Lab, { target, props: { nodes } })
flushSync()
const initialRenderMs = performance.now() - started
target.dataset.initialRenderMs = initialRenderMs.toFixed(1)
