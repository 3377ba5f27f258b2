export const blocks = 'blocks'
