export const maxIndex = 7
