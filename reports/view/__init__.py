"""What a report shows, decided from report data: its shape and validation (:mod:`.model`) and
the view of one edition (:mod:`.edition`); the templates only lay it out."""
