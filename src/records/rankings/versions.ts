/** What produced a day file's figures: the service version's engine (trade model, metrics). */
import { VERSION } from '../../version'

export const ENGINE_VERSION = `perpsim-engine-${VERSION}`
