"""Playing Triage in a terminal: the full-screen game (:mod:`.app`), the plain text loop
(:mod:`.plain`), the typed commands both accept (:mod:`.parse`), the text pictures of a position
(:mod:`.render`), the table both drive (:mod:`.session`) and bot-against-bot matches
(:mod:`.match`)."""
