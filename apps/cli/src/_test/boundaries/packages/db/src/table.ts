export const table = 'uncles'
