import { Elysia } from 'elysia'
import { indicatorList, servedPreset } from '../../strategies/describe'
import { listPresets } from '../../strategies/presets'
import { BuilderIndicatorList, NotFound, Preset, PresetList, PresetParams } from './model'

/** GET /builder/indicators, /builder/presets and /builder/presets/:preset_id. */
export function builderModule() {
  const indicators = indicatorList()
  const presets = listPresets()
  return new Elysia({ name: 'builder', prefix: '/builder' })
    .get('/indicators', () => indicators, {
      response: BuilderIndicatorList,
      detail: { tags: ['builder'], summary: 'Indicators for the strategy builder, as a list' },
    })
    .get('/presets', () => presets, {
      response: PresetList,
      detail: { tags: ['builder'], summary: 'Ready-made strategies to start the builder from' },
    })
    .get(
      '/presets/:preset_id',
      ({ params, status }) => servedPreset(params.preset_id) ?? status(404, { detail: `Preset '${params.preset_id}' not found` }),
      {
        params: PresetParams,
        response: { 200: Preset, 404: NotFound },
        detail: { tags: ['builder'], summary: 'One preset in full: indicators, entry tree and settings' },
      },
    )
}
