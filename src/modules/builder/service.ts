/** GET /builder/presets/{preset_id}: one preset in full, or NotFound (404). */
import { NotFound } from '../../runs/errors'
import { getPreset, type Preset } from '../../strategies/presets'

export function presetById(id: string): Preset {
  const preset = getPreset(id)
  if (!preset) throw new NotFound(`Preset '${id}' not found`)
  return preset
}
