/**
 * Imported first by the CLI, before any module reads NODE_ENV at load time. The service
 * runs as production unless NODE_ENV says otherwise: Elysia then builds a validation
 * error's internal message as one compact JSON of the input, where in development it
 * pretty-prints the input with every error beside it (about 200 ms for a 400 KB array sent
 * in a string field, blocking every other request meanwhile). The answer a client gets is
 * the same either way (src/http/errors.ts).
 */
process.env.NODE_ENV ??= 'production'
