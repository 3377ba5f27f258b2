export { formatEta } from './progress.js'
export { progressBar } from './status/statusView.js'
