"""A tiny hand-written game system and catalogue for the battle size and a category's own
constraints (rulings D1, M12): our own names and invented numbers, no rules text.

- The game system offers the three battle sizes, as the real one does (a "Battle Size" group).
- "Hired Blades" (a category): no points of them in the army, 100 in Incursion, 200 in Strike
  Force, 300 in Onslaught (an allies' points cap).
- "Retainer" (a hidden category): no units of it, 1 in Incursion, 2 in Strike Force, 3 in
  Onslaught, one more when the army holds a "Patron" unit, and none in a Crusade force (a
  modifier decided false in a matched-play list).
- "Relic Guard": at most 1 unit in the army, a fixed limit two datasheets share.
- "Sentinel" carries a category named after itself, at most 3: no looser than the core rule,
  so it is not read twice.
- "Bastion": hidden unless the battle size is Onslaught (a fortification).
- "Drifter": a category whose limit depends on a ``count`` condition group, which this
  reading cannot express: left out (no limit).
"""

from __future__ import annotations

GST = b"""<?xml version="1.0" encoding="UTF-8"?>
<gameSystem xmlns="http://www.battlescribe.net/schema/gameSystemSchema" id="sys-b" name="B System"
  revision="1" battleScribeVersion="2.03" type="gameSystem">
  <costTypes><costType id="pts" name="pts" defaultCostLimit="-1"/></costTypes>
  <categoryEntries>
    <categoryEntry id="c-char" name="Character"/>
    <categoryEntry id="c-config" name="Configuration"/>
    <categoryEntry id="c-fac" name="Faction: Wardens"/>
  </categoryEntries>
  <forceEntries>
    <forceEntry id="f-army" name="Army Roster"/>
    <forceEntry id="f-crusade" name="Crusade Force"/>
  </forceEntries>
  <entryLinks>
    <entryLink id="l-size" name="Battle Size" targetId="e-size" type="selectionEntry"/>
  </entryLinks>
  <sharedSelectionEntries>
    <selectionEntry id="e-size" name="Battle Size" type="upgrade">
      <categoryLinks>
        <categoryLink id="cl-size" targetId="c-config" primary="true"/>
      </categoryLinks>
      <selectionEntryGroups>
        <selectionEntryGroup id="g-size" name="Battle Size">
          <selectionEntries>
            <selectionEntry id="s-inc" name="1. Incursion (1000 Point limit)" type="upgrade"/>
            <selectionEntry id="s-sf" name="2. Strike Force (2000 Point limit)" type="upgrade"/>
            <selectionEntry id="s-ons" name="3. Onslaught (3000 Point limit)" type="upgrade"/>
          </selectionEntries>
        </selectionEntryGroup>
      </selectionEntryGroups>
    </selectionEntry>
  </sharedSelectionEntries>
</gameSystem>
"""

CAT = b"""<?xml version="1.0" encoding="UTF-8"?>
<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" id="cat-b" name="Wardens"
  revision="3" battleScribeVersion="2.03" library="false" gameSystemId="sys-b"
  gameSystemRevision="1" type="catalogue">
  <categoryEntries>
    <categoryEntry id="c-hired" name="Hired Blades">
      <constraints>
        <constraint id="k-hired" type="max" value="-1" field="pts" scope="force" shared="true"
          includeChildSelections="true"/>
      </constraints>
      <modifiers>
        <modifier type="set" value="100" field="k-hired">
          <conditions>
            <condition type="greaterThan" value="0" field="selections" scope="force"
              childId="s-inc" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
        <modifier type="set" value="200" field="k-hired">
          <conditions>
            <condition type="greaterThan" value="0" field="selections" scope="force"
              childId="s-sf" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
        <modifier type="set" value="300" field="k-hired">
          <conditions>
            <condition type="greaterThan" value="0" field="selections" scope="force"
              childId="s-ons" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
      </modifiers>
    </categoryEntry>
    <categoryEntry id="c-retainer" name="Retainer" hidden="true">
      <constraints>
        <constraint id="k-retainer" type="max" value="0" field="selections" scope="force"
          shared="true" includeChildSelections="true"/>
      </constraints>
      <modifiers>
        <modifier type="set" value="1" field="k-retainer">
          <conditions>
            <condition type="atLeast" value="1" field="selections" scope="force"
              childId="s-inc" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
        <modifier type="set" value="2" field="k-retainer">
          <conditions>
            <condition type="atLeast" value="1" field="selections" scope="force"
              childId="s-sf" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
        <modifier type="set" value="3" field="k-retainer">
          <conditions>
            <condition type="atLeast" value="1" field="selections" scope="force"
              childId="s-ons" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
        <modifier type="increment" value="1" field="k-retainer">
          <conditions>
            <condition type="atLeast" value="1" field="selections" scope="force"
              childId="e-patron" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
        <modifier type="set" value="-1" field="k-retainer">
          <conditions>
            <condition type="instanceOf" value="1" field="selections" scope="force"
              childId="f-crusade" shared="true"/>
          </conditions>
        </modifier>
      </modifiers>
    </categoryEntry>
    <categoryEntry id="c-relic" name="Relic Guard">
      <constraints>
        <constraint id="k-relic" type="max" value="1" field="selections" scope="force"
          shared="true" includeChildSelections="true"/>
      </constraints>
    </categoryEntry>
    <categoryEntry id="c-sentinel" name="Sentinel">
      <constraints>
        <constraint id="k-sentinel" type="max" value="3" field="selections" scope="force"
          shared="true" includeChildSelections="true"/>
      </constraints>
    </categoryEntry>
    <categoryEntry id="c-drifter" name="Drifter">
      <constraints>
        <constraint id="k-drifter" type="max" value="0" field="selections" scope="force"
          shared="true" includeChildSelections="true"/>
      </constraints>
      <modifiers>
        <modifier type="set" value="1" field="k-drifter">
          <conditionGroups>
            <conditionGroup type="count" min="1">
              <conditions>
                <condition type="atLeast" value="1" field="selections" scope="force"
                  childId="s-inc" shared="true" includeChildSelections="true"/>
              </conditions>
            </conditionGroup>
          </conditionGroups>
        </modifier>
      </modifiers>
    </categoryEntry>
  </categoryEntries>
  <selectionEntries>
    <selectionEntry id="e-det" name="Detachment" type="upgrade">
      <selectionEntryGroups>
        <selectionEntryGroup id="g-det" name="Detachment Choice">
          <selectionEntries>
            <selectionEntry id="d-a" name="Wall Watch" type="upgrade"/>
          </selectionEntries>
        </selectionEntryGroup>
      </selectionEntryGroups>
    </selectionEntry>
    <selectionEntry id="e-lord" name="Lord" type="model">
      <categoryLinks>
        <categoryLink id="cl1" targetId="c-char" primary="true"/>
        <categoryLink id="cl2" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <costs><cost name="pts" typeId="pts" value="80"/></costs>
    </selectionEntry>
    <selectionEntry id="e-patron" name="Patron" type="model">
      <categoryLinks>
        <categoryLink id="cl3" targetId="c-char" primary="true"/>
        <categoryLink id="cl4" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <costs><cost name="pts" typeId="pts" value="60"/></costs>
    </selectionEntry>
    <selectionEntry id="e-sellsword" name="Sellswords" type="model">
      <categoryLinks>
        <categoryLink id="cl5" targetId="c-fac" primary="false"/>
        <categoryLink id="cl6" targetId="c-hired" primary="false"/>
      </categoryLinks>
      <costs><cost name="pts" typeId="pts" value="90"/></costs>
    </selectionEntry>
    <selectionEntry id="e-duelist" name="Duelist" type="model">
      <categoryLinks>
        <categoryLink id="cl7" targetId="c-fac" primary="false"/>
        <categoryLink id="cl8" targetId="c-hired" primary="false"/>
      </categoryLinks>
      <costs><cost name="pts" typeId="pts" value="45"/></costs>
    </selectionEntry>
    <selectionEntry id="e-squire" name="Squire" type="model">
      <categoryLinks>
        <categoryLink id="cl9" targetId="c-fac" primary="false"/>
        <categoryLink id="cl10" targetId="c-retainer" primary="false"/>
      </categoryLinks>
      <costs><cost name="pts" typeId="pts" value="20"/></costs>
    </selectionEntry>
    <selectionEntry id="e-relic-a" name="Relic Bearer" type="model">
      <categoryLinks>
        <categoryLink id="cl11" targetId="c-fac" primary="false"/>
        <categoryLink id="cl12" targetId="c-relic" primary="false"/>
      </categoryLinks>
      <costs><cost name="pts" typeId="pts" value="30"/></costs>
    </selectionEntry>
    <selectionEntry id="e-relic-b" name="Relic Keeper" type="model">
      <categoryLinks>
        <categoryLink id="cl13" targetId="c-fac" primary="false"/>
        <categoryLink id="cl14" targetId="c-relic" primary="false"/>
      </categoryLinks>
      <costs><cost name="pts" typeId="pts" value="30"/></costs>
    </selectionEntry>
    <selectionEntry id="e-sentinel" name="Sentinel" type="model">
      <categoryLinks>
        <categoryLink id="cl15" targetId="c-fac" primary="false"/>
        <categoryLink id="cl16" targetId="c-sentinel" primary="false"/>
      </categoryLinks>
      <costs><cost name="pts" typeId="pts" value="25"/></costs>
    </selectionEntry>
    <selectionEntry id="e-drifter" name="Drifter" type="model">
      <categoryLinks>
        <categoryLink id="cl17" targetId="c-fac" primary="false"/>
        <categoryLink id="cl18" targetId="c-drifter" primary="false"/>
      </categoryLinks>
      <costs><cost name="pts" typeId="pts" value="15"/></costs>
    </selectionEntry>
    <selectionEntry id="e-bastion" name="Bastion" type="model">
      <categoryLinks>
        <categoryLink id="cl19" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <modifiers>
        <modifier type="set" value="true" field="hidden">
          <conditions>
            <condition type="lessThan" value="1" field="selections" scope="roster"
              childId="s-ons" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
      </modifiers>
      <costs><cost name="pts" typeId="pts" value="150"/></costs>
    </selectionEntry>
  </selectionEntries>
</catalogue>
"""

FILES = [("b.gst", GST), ("wardens.cat", CAT)]
