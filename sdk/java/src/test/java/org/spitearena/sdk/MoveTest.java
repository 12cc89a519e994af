package org.spitearena.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class MoveTest {

    @Test
    void notationRoundTrips() {
        Map<String, Move> cases = Map.of(
                "H:7>C0", new Move(MoveKind.PLAY, Source.HAND, 0, 7, 0),
                "S:K>C2", new Move(MoveKind.PLAY, Source.STOCK, 0, Card.KING, 2),
                "D1:Q>C3", new Move(MoveKind.PLAY, Source.DISCARD_PILE, 1, Card.QUEEN, 3),
                "H:9>D0", new Move(MoveKind.DISCARD, Source.HAND, 0, 9, 0),
                "pass", Move.PASS,
                "H:*>C1", Move.play(Source.HAND, Card.JOKER, 1),
                "S:A>C0", Move.play(Source.STOCK, Card.ACE, 0),
                "H:10>D3", Move.discard(10, 3),
                "D3:J>C1", Move.playFromDiscardPile(3, Card.JACK, 1));
        cases.forEach((text, move) -> {
            assertEquals(text, move.toString());
            assertEquals(move, Move.parse(text), text);
        });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "h:9>d0|H:9>D0", "' S : k > C2 '|S:K>C2", "PASS|pass", "d1:12>c3|D1:Q>C3", "H:joker>C0|H:*>C0",
        "H:sb>C0|H:*>C0", "S:13>C1|S:K>C1", "H:07>C0|H:7>C0", "'  pass\t'|pass"})
    void parsingIsLenient(String text, String canonical) {
        assertEquals(canonical, Move.parse(text).toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "S:7>D0", "D0:7>D1", "X:7>C0", "H:14>C0", "H:7>C", "H:7>C10", "H7>C0", "H:-1>C0",
        "H:+1>C0", "H:Z>C0", "passes", "H:7>C0 extra"})
    void parsingRejects(String text) {
        assertThrows(IllegalArgumentException.class, () -> Move.parse(text));
    }

    @Test
    void onlyHandCardsMayBeDiscarded() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> Move.parse("S:7>D0"));
        assertTrue(error.getMessage().contains("only hand cards may be discarded"), error.getMessage());
    }

    @Test
    void cardNames() {
        Map<Integer, String> names = Map.of(Card.JOKER, "*", Card.ACE, "A", 2, "2", 10, "10", Card.JACK, "J",
                Card.QUEEN, "Q", Card.KING, "K");
        names.forEach((card, name) -> {
            assertEquals(name, Card.name(card));
            assertEquals(card, Card.parse(name.toLowerCase(Locale.ROOT)));
        });
        for (String bad : new String[] {"", "14", "-1", "-0", "+3", "X", "1.0", "007"}) {
            assertThrows(IllegalArgumentException.class, () -> Card.parse(bad), bad);
        }
    }

    @Test
    void movesAreValues() {
        assertEquals(Move.parse("D1:Q>C3"), Move.playFromDiscardPile(1, 12, 3));
        assertEquals(Move.parse("D1:Q>C3").hashCode(), Move.playFromDiscardPile(1, 12, 3).hashCode());
        assertThrows(NullPointerException.class, () -> new Move(null, Source.HAND, 0, 1, 0));
    }
}
