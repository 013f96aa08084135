"""A tiny hand-written game system and catalogue for the restriction, roster-option and
census tests: our own names and invented numbers, no rules text. Each "add error" modifier
carries a stand-in message; the importer must not keep it."""

from __future__ import annotations

GST = b"""<?xml version="1.0" encoding="UTF-8"?>
<gameSystem xmlns="http://www.battlescribe.net/schema/gameSystemSchema" id="sys-r" name="R System"
  revision="1" battleScribeVersion="2.03" type="gameSystem">
  <costTypes><costType id="pts" name="pts" defaultCostLimit="-1"/></costTypes>
  <categoryEntries>
    <categoryEntry id="c-char" name="Character"/>
    <categoryEntry id="c-inf" name="Infantry"/>
    <categoryEntry id="c-fac" name="Faction: Testers"/>
  </categoryEntries>
  <forceEntries>
    <forceEntry id="f-army" name="Army Roster"/>
    <forceEntry id="f-crusade" name="Crusade Force"/>
  </forceEntries>
  <sharedSelectionEntries>
    <selectionEntry id="opt-legends" name="Show Legends" type="upgrade"/>
    <selectionEntry id="opt-allies" name="Show Allies" type="upgrade"/>
    <selectionEntry id="e-warlord" name="Warlord" type="upgrade"/>
  </sharedSelectionEntries>
</gameSystem>
"""

CAT = b"""<?xml version="1.0" encoding="UTF-8"?>
<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" id="cat-r" name="Testers"
  revision="3" battleScribeVersion="2.03" library="false" gameSystemId="sys-r"
  gameSystemRevision="1" type="catalogue">
  <selectionEntries>
    <selectionEntry id="e-det" name="Detachment" type="upgrade">
      <selectionEntryGroups>
        <selectionEntryGroup id="g-det" name="Detachment Choice">
          <selectionEntries>
            <selectionEntry id="d-a" name="First Host" type="upgrade"/>
            <selectionEntry id="d-b" name="Second Host" type="upgrade"/>
          </selectionEntries>
        </selectionEntryGroup>
      </selectionEntryGroups>
    </selectionEntry>
    <selectionEntry id="e-squad" name="Squad" type="unit">
      <categoryLinks>
        <categoryLink id="cl1" targetId="c-inf" primary="true"/>
        <categoryLink id="cl2" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <modifiers>
        <modifier type="add" field="error" value="stand-in message">
          <conditions>
            <condition type="atLeast" value="1" field="selections" scope="roster" childId="d-b"
              shared="true" includeChildSelections="true"/>
            <condition type="greaterThan" value="2" field="selections" scope="roster"
              childId="e-squad" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
      </modifiers>
      <selectionEntries>
        <selectionEntry id="m-trooper" name="Trooper" type="model">
          <constraints>
            <constraint id="k1" type="min" value="5" field="selections" scope="parent"/>
            <constraint id="k2" type="max" value="10" field="selections" scope="parent"/>
          </constraints>
        </selectionEntry>
      </selectionEntries>
      <selectionEntryGroups>
        <selectionEntryGroup id="g-guns" name="Heavy weapons">
          <constraints>
            <constraint id="k3" type="max" value="2" field="selections" scope="parent"/>
          </constraints>
          <selectionEntries>
            <selectionEntry id="w-gun" name="Heavy gun" type="upgrade">
              <modifiers>
                <modifier type="add" field="error" value="stand-in message">
                  <conditionGroups>
                    <conditionGroup type="and">
                      <conditions>
                        <condition type="lessThan" value="10" field="selections" scope="parent"
                          childId="model" shared="true" includeChildSelections="true"/>
                        <condition type="greaterThan" value="1" field="selections" scope="parent"
                          childId="w-gun" shared="true" includeChildSelections="true"/>
                      </conditions>
                    </conditionGroup>
                  </conditionGroups>
                </modifier>
              </modifiers>
            </selectionEntry>
          </selectionEntries>
        </selectionEntryGroup>
      </selectionEntryGroups>
      <costs><cost name="pts" typeId="pts" value="90"/></costs>
    </selectionEntry>
    <selectionEntry id="e-chief" name="Chief" type="model">
      <categoryLinks>
        <categoryLink id="cl3" targetId="c-char" primary="true"/>
        <categoryLink id="cl4" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <modifiers>
        <modifier type="add" field="warning" value="stand-in message">
          <conditions>
            <condition type="lessThan" value="1" field="selections" scope="roster"
              childId="e-warlord" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
        <modifier type="add" field="error" value="stand-in message">
          <conditions>
            <condition type="instanceOf" value="1" field="selections" scope="force"
              childId="f-crusade" shared="true"/>
          </conditions>
        </modifier>
        <modifier type="add" field="error" value="stand-in message">
          <conditionGroups>
            <conditionGroup type="count">
              <conditions>
                <condition type="atLeast" value="1" field="selections" scope="roster"
                  childId="e-squad" shared="true" includeChildSelections="true"/>
              </conditions>
            </conditionGroup>
          </conditionGroups>
        </modifier>
      </modifiers>
      <costs><cost name="pts" typeId="pts" value="60"/></costs>
    </selectionEntry>
    <selectionEntry id="e-old" name="Old Walker" type="model">
      <categoryLinks>
        <categoryLink id="cl5" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <modifiers>
        <modifier type="set" field="hidden" value="true">
          <conditions>
            <condition type="lessThan" value="1" field="selections" scope="roster"
              childId="opt-legends" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
      </modifiers>
      <costs><cost name="pts" typeId="pts" value="120"/></costs>
    </selectionEntry>
    <selectionEntry id="e-rival" name="Rival" type="model">
      <categoryLinks>
        <categoryLink id="cl7" targetId="c-char" primary="true"/>
        <categoryLink id="cl8" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <modifiers>
        <modifier type="set" field="hidden" value="true">
          <conditions>
            <condition type="atLeast" value="1" field="selections" scope="roster"
              childId="e-chief" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
        <modifier type="set" field="hidden" value="true">
          <conditions>
            <condition type="atLeast" value="1" field="selections" scope="roster"
              childId="e-rival" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
      </modifiers>
      <costs><cost name="pts" typeId="pts" value="70"/></costs>
    </selectionEntry>
    <selectionEntry id="e-ally" name="Ally Walker" type="model">
      <categoryLinks>
        <categoryLink id="cl6" targetId="c-fac" primary="false"/>
      </categoryLinks>
      <modifiers>
        <modifier type="set" field="hidden" value="true">
          <conditions>
            <condition type="lessThan" value="1" field="selections" scope="roster"
              childId="opt-allies" shared="true" includeChildSelections="true"/>
          </conditions>
        </modifier>
      </modifiers>
      <costs><cost name="pts" typeId="pts" value="100"/></costs>
    </selectionEntry>
  </selectionEntries>
</catalogue>
"""

FILES = [("r.gst", GST), ("r.cat", CAT)]
