/**
 * The badge beside a role's model: what is known of the model in use now
 * (roles/model-health.ts), never of one it used before (issue 56). Green
 * only once a check or a call of this model succeeded and nothing failed
 * since (issue 43): a model nobody called yet is "not checked yet", and one
 * whose check or call showed it cannot work says so, whatever worked before.
 */
import type { RoleActivity } from '../../runtime/types'
import type { Tone } from './status'

export interface ModelBadge {
  label: string
  tone: Tone
  /** a sentence for the tooltip */
  title: string
}

export function modelBadge(
  activity: Pick<RoleActivity, 'role' | 'healthy' | 'modelStatus' | 'offline' | 'budget'>,
): ModelBadge | null {
  // an observer makes no model calls: there is nothing to vouch for
  if (activity.role === 'observer') return null
  const status = activity.modelStatus
  if (status.state === 'broken')
    return {
      label: 'not working',
      tone: 'bad',
      title: `${status.error ?? 'The model does not work'}. This tab takes no new work until it does.`,
    }
  if (activity.budget?.decision.paused)
    return { label: 'paused', tone: 'busy', title: 'A spending cap was reached' }
  if (!activity.healthy)
    return { label: 'failing', tone: 'bad', title: 'The last call failed; tried again in 30 s' }
  switch (status.state) {
    case 'failing':
      return {
        label: 'last call failed',
        tone: 'bad',
        title: 'It is tried again with the next task',
      }
    case 'works':
      return status.by === 'check'
        ? { label: 'check OK', tone: 'good', title: 'The check of these settings succeeded' }
        : { label: 'last call OK', tone: 'good', title: 'Its last call succeeded' }
    case 'unknown':
      return activity.offline
        ? { label: 'ready', tone: 'idle', title: 'The built-in model runs in this tab' }
        : {
            label: 'not checked yet',
            tone: 'idle',
            title: 'Nothing known of these settings yet: the check or the first task shows it',
          }
  }
}
