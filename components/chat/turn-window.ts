/**
 * Turns rendered at first, and added each time the reader scrolls to the top: a long
 * history opens at its end at once instead of rendering hundreds of answers up front.
 * Twelve fill a tall screen (when they do not, the top is in view and more are revealed
 * at once); each answer rendered costs the first paint (measured on a 500-turn reload:
 * 30 rendered turns took about 400 ms more main-thread time than one).
 */
export const TURNS_PER_PAGE = 12;
