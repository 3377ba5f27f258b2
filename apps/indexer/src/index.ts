export { formatEta } from './progress.js'
export { progressBar } from './statusView.js'
