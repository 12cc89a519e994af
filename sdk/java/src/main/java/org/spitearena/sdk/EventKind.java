package org.spitearena.sdk;

/** What an {@link Event} records (numbered like the engine's: the wire's number minus one). */
public enum EventKind {
    /** The game begins; {@code seat} moves first. */
    DEAL,
    /** Turn number {@code count} begins for {@code seat}. */
    TURN,
    /** {@code seat} made {@code move}. */
    MOVE,
    /** {@code seat} drew {@code count} cards; {@code cards} are filled only for the drawing seat. */
    DRAW,
    /** Stock {@code pile} shows {@code cards} face up (top first), {@code count} cards left in it. */
    REVEAL,
    /** Centre pile {@code pile} reached the Queen; its {@code cards} left the table. */
    PILE_COMPLETED,
    /** The draw pile was shuffled and holds {@code count} cards. */
    SHUFFLE,
    /** The game is over (the outcome comes in {@link Bot#onGameOver}). */
    GAME_OVER,
    /** A kind this SDK does not know (a newer referee). */
    UNKNOWN
}
